package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.redis.VirtualThreadAccess;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application with Spring Boot's virtual threads switched on
 * ({@code spring.threads.virtual.enabled=true}): its {@code @Async} and
 * {@code @Scheduled} methods run on virtual threads, and their {@link DistributedLock}s
 * are held there, on Lettuce's own client and through Spring Data Redis on Jedis.
 * {@value #RUNS} calls of one locked method wait for each other, never overlap, get
 * increasing fencing tokens, and a run longer than its lease keeps its lock through the
 * watchdog's renewals. JDK 21 and later.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@Timeout(120)
class DistLockVirtualThreadsTests {

	private static final int RUNS = 20;

	/**
	 * A lease that a machine busy with other work renews in time, which one run outlasts.
	 */
	private static final Duration LEASE = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				TaskSchedulingAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withUserConfiguration(ReportConfiguration.class)
		.withPropertyValues("spring.threads.virtual.enabled=true", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=10s",
				"distlock.lease-time=" + LEASE.toMillis() + "ms");

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void asyncAndScheduledLockedMethodsHoldTheirLocksOnVirtualThreads(String clientType) {
		this.contextRunner.withPropertyValues("spring.data.redis.client-type=" + clientType).run((context) -> {
			assertThat(context).hasNotFailed();
			ReportService reports = context.getBean(ReportService.class);
			for (int run = 0; run < RUNS; run++) {
				reports.generate((run == 0) ? LEASE.plusSeconds(1) : Duration.ofMillis(20));
			}
			await().atMost(Duration.ofSeconds(90)).until(() -> reports.runs().size() == RUNS + 1);
			List<Run> runs = reports.runs();
			assertThat(runs).as("runs on virtual threads").allMatch(Run::virtual);
			assertThat(runs).as("runs that held their lock in Redis from start to end").allMatch(Run::heldThroughout);
			assertThat(runs).as("runs that overlapped another").noneMatch(Run::overlapped);
			assertThat(runs.stream().filter(Run::scheduled)).as("scheduled runs").hasSize(1);
			List<Long> tokens = runs.stream().map(Run::fencingToken).toList();
			assertThat(tokens).as("fencing tokens in the order the runs held the lock")
				.isSorted()
				.doesNotHaveDuplicates();
		});
	}

	/**
	 * One run of the locked report, as seen from inside the method.
	 *
	 * @param scheduled whether the scheduler started it
	 * @param virtual whether it ran on a virtual thread
	 * @param heldThroughout whether its lease was valid and the lock key in Redis when it
	 * started and when it ended
	 * @param overlapped whether another run was inside the method at the same time
	 * @param fencingToken its lease's fencing token
	 */
	record Run(boolean scheduled, boolean virtual, boolean heldThroughout, boolean overlapped, long fencingToken) {

	}

	/**
	 * A report generated asynchronously on request and once by the scheduler, under one
	 * lock.
	 */
	static class ReportService {

		private final Queue<Run> runs = new ConcurrentLinkedQueue<>();

		private final AtomicInteger inside = new AtomicInteger();

		private final StringRedisTemplate redis;

		ReportService(StringRedisTemplate redis) {
			this.redis = redis;
		}

		/**
		 * Return the runs that ended so far.
		 * @return the runs, in the order they ended
		 */
		public List<Run> runs() {
			return List.copyOf(this.runs);
		}

		@Async
		@DistributedLock(name = "report", waitTime = "60s")
		public void generate(Duration work) throws InterruptedException {
			run(false, work);
		}

		@Scheduled(fixedRate = 3_600_000)
		@DistributedLock(name = "report", waitTime = "60s")
		public void generateOnSchedule() throws InterruptedException {
			run(true, Duration.ofMillis(20));
		}

		private void run(boolean scheduled, Duration work) throws InterruptedException {
			LockLease lease = LockContext.currentLease().orElseThrow();
			boolean overlapped = this.inside.incrementAndGet() != 1;
			boolean heldAtStart = isHeld(lease);
			Thread.sleep(work.toMillis());
			boolean heldAtEnd = isHeld(lease);
			this.inside.decrementAndGet();
			this.runs.add(new Run(scheduled, VirtualThreadAccess.isCurrentThreadVirtual(), heldAtStart && heldAtEnd,
					overlapped, lease.fencingToken()));
		}

		private boolean isHeld(LockLease lease) {
			return lease.isValid() && Boolean.TRUE.equals(this.redis.hasKey("lock:report"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	@EnableScheduling
	static class ReportConfiguration {

		@Bean
		ReportService reportService(StringRedisTemplate redis) {
			return new ReportService(redis);
		}

	}

}
