package dev.distlock.sample.cleanup;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that every instance triggers every {@code sample.cleanup.interval} and
 * that runs on one of them only. The instances that do not get the lock skip the run
 * ({@link LockFailureAction#SKIP}); the one that does keeps the lock for at least
 * {@code sample.cleanup.min-hold} after it started, so that an instance whose clock or
 * schedule is a little late finds it still taken and skips too.
 *
 * <p>
 * Each run records itself (fencing token, instance, start and end) in the Redis list
 * {@value #RUNS_KEY} and trims that list to the newest {@code sample.cleanup.keep}
 * entries, its only cleaning.
 */
@Component
public class CleanupJob {

	/**
	 * The Redis list holding the recorded runs, oldest first.
	 */
	public static final String RUNS_KEY = "sample:cleanup:runs";

	private static final Log logger = LogFactory.getLog(CleanupJob.class);

	private final StringRedisTemplate redis;

	private final String instance;

	private final int keep;

	CleanupJob(StringRedisTemplate redis, @Value("${sample.instance-id}") String instance,
			@Value("${sample.cleanup.keep:100}") int keep) {
		this.redis = redis;
		this.instance = instance;
		this.keep = keep;
	}

	/**
	 * Run the cleanup, if no other instance is running it or ran it less than the minimum
	 * hold time ago.
	 */
	@Scheduled(fixedRateString = "${sample.cleanup.interval:10s}",
			initialDelayString = "${sample.cleanup.interval:10s}")
	@DistributedLock(name = "cleanup", onFailure = LockFailureAction.SKIP,
			minHoldTime = "${sample.cleanup.min-hold:5s}")
	public void run() {
		Instant startedAt = Instant.now();
		long token = LockContext.currentLease().orElseThrow().fencingToken();
		CleanupRun run = new CleanupRun(token, this.instance, startedAt, Instant.now());
		this.redis.opsForList().rightPush(RUNS_KEY, run.toRecord());
		this.redis.opsForList().trim(RUNS_KEY, -this.keep, -1);
		logger.info("Cleanup run with fencing token " + token + " on " + this.instance);
	}

	/**
	 * Return the recorded runs, newest first.
	 * @param limit how many at most
	 * @return the runs
	 */
	public List<CleanupRun> recentRuns(int limit) {
		List<String> recorded = this.redis.opsForList().range(RUNS_KEY, -limit, -1);
		if (recorded == null) {
			return List.of();
		}
		List<CleanupRun> runs = new ArrayList<>(recorded.size());
		for (int i = recorded.size() - 1; i >= 0; i--) {
			runs.add(CleanupRun.parse(recorded.get(i)));
		}
		return runs;
	}

}
