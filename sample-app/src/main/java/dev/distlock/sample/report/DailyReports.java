package dev.distlock.sample.report;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.fencing.RedisFence;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.sample.inventory.Inventory;
import dev.distlock.sample.inventory.StockLevel;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Writes the daily stock report through the {@link LockRegistry}: it acquires a lease on
 * {@value #LOCK}, and writes the report, as JSON, with the lease's fencing token through
 * the {@link RedisFence}. The fence checks the token and sets the report in one script,
 * and refuses the write if a later holder of the lock already wrote.
 */
@Service
public class DailyReports {

	/**
	 * The name of the lock reports are written under, and of the resource the fence
	 * guards.
	 */
	public static final String LOCK = "report:daily";

	/**
	 * The Redis key of the report.
	 */
	public static final String REPORT_KEY = "sample:report:daily";

	private static final Duration WAIT_TIME = Duration.ofSeconds(5);

	private final LockRegistry locks;

	private final RedisFence fence;

	private final StringRedisTemplate redis;

	private final JsonMapper json;

	private final Inventory inventory;

	private final String instance;

	DailyReports(LockRegistry locks, RedisFence fence, StringRedisTemplate redis, JsonMapper json, Inventory inventory,
			@Value("${sample.instance-id}") String instance) {
		this.locks = locks;
		this.fence = fence;
		this.redis = redis;
		this.json = json;
		this.inventory = inventory;
		this.instance = instance;
	}

	/**
	 * Write today's report, waiting up to five seconds for another instance writing it.
	 * @return the report written
	 * @throws dev.distlock.LockAcquisitionException if the lock was not acquired in time
	 * @throws StaleFencingTokenException if a later holder of the lock wrote first
	 */
	public DailyReport write() {
		try (LockLease lease = this.locks.acquire(LOCK, WAIT_TIME)) {
			List<StockLevel> stock = this.inventory.all();
			long total = stock.stream().mapToLong(StockLevel::stock).sum();
			DailyReport report = new DailyReport(LocalDate.now(ZoneOffset.UTC), stock.size(), total, this.instance,
					Instant.now(), lease.fencingToken());
			this.fence.write(LOCK, lease.fencingToken(), REPORT_KEY, this.json.writeValueAsString(report));
			return report;
		}
	}

	/**
	 * Return the report written last.
	 * @return the report, or empty if none was written
	 */
	public Optional<DailyReport> latest() {
		return Optional.ofNullable(this.redis.opsForValue().get(REPORT_KEY))
			.map((report) -> this.json.readValue(report, DailyReport.class));
	}

}
