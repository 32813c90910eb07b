package dev.distlock.sample.export;

import java.time.Duration;
import java.util.stream.Collectors;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.LockContext;
import dev.distlock.sample.catalog.Catalog;
import dev.distlock.sample.catalog.CatalogSnapshot;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Exports of the catalogue, each as slow as rendering a large file would be (a pause of
 * {@code sample.exports.duration} stands in for it), of which at most
 * {@code sample.exports.limit} run at once across every instance. A call beyond the limit
 * waits {@code sample.exports.wait-time} for a permit, then fails with
 * {@link dev.distlock.LockAcquisitionException}, which the web layer answers with
 * {@code 503} and {@code Retry-After}. Each export counts itself in Redis while it runs,
 * so that its result says how many ran at once.
 */
@Service
public class CatalogExports {

	private static final String RUNNING_KEY = "sample:exports:running";

	private final Catalog catalog;

	private final StringRedisTemplate redis;

	private final Duration duration;

	private final String instanceId;

	CatalogExports(Catalog catalog, StringRedisTemplate redis, @Value("${sample.exports.duration}") Duration duration,
			@Value("${sample.instance-id}") String instanceId) {
		this.catalog = catalog;
		this.redis = redis;
		this.duration = duration;
		this.instanceId = instanceId;
	}

	/**
	 * Export the catalogue, holding one of the limited permits while it runs.
	 * @return the export
	 * @throws InterruptedException if interrupted while rendering
	 */
	@DistributedConcurrencyLimit(name = "catalog-exports", limit = "${sample.exports.limit}",
			waitTime = "${sample.exports.wait-time}")
	public CatalogExport export() throws InterruptedException {
		Long running = this.redis.opsForValue().increment(RUNNING_KEY);
		try {
			CatalogSnapshot snapshot = this.catalog.read();
			Thread.sleep(this.duration.toMillis());
			String csv = snapshot.prices()
				.entrySet()
				.stream()
				.map((entry) -> entry.getKey() + "," + entry.getValue())
				.collect(Collectors.joining("\n"));
			return new CatalogExport(this.instanceId, (running != null) ? running : 0,
					LockContext.currentLease().orElseThrow().fencingToken(), csv);
		}
		finally {
			this.redis.opsForValue().decrement(RUNNING_KEY);
		}
	}

}
