package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LeaderOnly;
import dev.distlock.Leadership;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.autoconfigure.DistLockLeadershipAutoConfiguration;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LeaderOnly} methods of two application instances on a real {@code redis-server}:
 * they run on the instance that leads and are skipped on the other with the results of
 * {@code onFailure = SKIP}, taking no lock; a reactive result decides when it is
 * subscribed; and a bad annotation fails the startup naming the method.
 */
@Timeout(60)
class LeaderOnlyInterceptionTests {

	private static final Duration AT_ONCE = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class, DistLockLeadershipAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s", "distlock.leader.names=report");

	@Test
	void methodsRunOnTheLeaderAndAreSkippedOnTheStandbyWithTheResultsOfSkip() {
		this.contextRunner.withBean(ReportJobs.class).run((leader) -> {
			awaitLeading(leader);
			this.contextRunner.withBean(ReportJobs.class).run((standby) -> {
				ReportJobs led = leader.getBean(ReportJobs.class);
				assertRuns(led);
				assertThat(led.calls()).isEqualTo(6);
				ReportJobs skipped = standby.getBean(ReportJobs.class);
				skipped.generate();
				assertThat(skipped.count()).isNull();
				assertThat(skipped.summary()).isEmpty();
				assertThat(skipped.later()).isCompletedWithValue(null);
				assertThat(skipped.mono().block(AT_ONCE)).isNull();
				assertThat(skipped.flux().collectList().block(AT_ONCE)).isEmpty();
				assertThat(skipped.calls()).isZero();
			});
		});
	}

	@Test
	void standbyRunsTheMethodsOnceTheLeaderYieldedAndAReactiveResultDecidesWhenSubscribed() {
		this.contextRunner.withBean(ReportJobs.class).run((first) -> {
			awaitLeading(first);
			this.contextRunner.withBean(ReportJobs.class).run((second) -> {
				awaitStandby();
				ReportJobs jobs = second.getBean(ReportJobs.class);
				Mono<String> created = jobs.mono();
				first.getBean(LockRegistry.class).leadership("report").yieldLeadership();
				awaitLeading(second);
				assertThat(created.block(AT_ONCE)).isEqualTo("mono");
				assertRuns(jobs);
				assertThat(jobs.calls()).isEqualTo(7);
				assertThat(first.getBean(ReportJobs.class).count()).isNull();
			});
		});
	}

	@Test
	void callSkippedOnTheStandbyTakesNoLock() {
		this.contextRunner.withBean(ExportJob.class).run((leader) -> {
			awaitLeading(leader);
			this.contextRunner.withBean(ExportJob.class).run((standby) -> {
				try (LockLease held = leader.getBean(LockRegistry.class).acquire("export", AT_ONCE)) {
					assertThat(standby.getBean(ExportJob.class).export()).isNull();
				}
				assertThat(standby.getBean(ExportJob.class).calls()).isZero();
			});
		});
	}

	@Test
	void leadershipNamesArePlaceholdersResolved() {
		this.contextRunner.withPropertyValues("jobs.leadership=report")
			.withBean(PlaceholderJob.class)
			.run((context) -> {
				awaitLeading(context);
				assertThat(context.getBean(PlaceholderJob.class).run()).isEqualTo("ran");
			});
	}

	@Test
	void methodNamingALeadershipThatIsNotCampaignedForFailsTheStartup() {
		this.contextRunner.withBean("auditJob", AuditJob.class).run((context) -> {
			InvalidLockAnnotationException failure = startupFailure(context);
			assertThat(failure.getProblems()).singleElement()
				.hasToString("@LeaderOnly on AuditJob.run() of bean 'auditJob', attribute 'value': "
						+ "'audit' is not a leadership this instance campaigns for")
				.extracting(InvalidLockAnnotationException.Problem::action)
				.isEqualTo("add it to distlock.leader.names, which names report");
		});
	}

	@Test
	void methodReturningAPrimitiveThatASkippedCallCannotReturnFailsTheStartup() {
		this.contextRunner.withBean("countingJob", CountingJob.class).run((context) -> {
			InvalidLockAnnotationException failure = startupFailure(context);
			assertThat(failure.getProblems()).singleElement()
				.hasToString("@LeaderOnly on CountingJob.count() of bean 'countingJob', attribute 'value': "
						+ "a call on an instance that does not lead is skipped, and cannot return a value of primitive"
						+ " type int")
				.extracting(InvalidLockAnnotationException.Problem::action)
				.isEqualTo("return nothing, or return a wrapper type such as Integer or Optional");
		});
	}

	@Test
	void methodLockingTheLockOfItsOwnLeadershipFailsTheStartup() {
		this.contextRunner.withBean("summaryJob", SummaryJob.class).run((context) -> {
			InvalidLockAnnotationException failure = startupFailure(context);
			assertThat(failure.getProblems()).singleElement()
				.hasToString("@DistributedLock on SummaryJob.run() of bean 'summaryJob', attribute 'name': "
						+ "'report' is the lock that the leadership 'report' holds for its whole term, so the leader"
						+ " never gets it and the method never runs (the other instances skip it as standbys)")
				.extracting(InvalidLockAnnotationException.Problem::action)
				.isEqualTo("give the lock a name of its own, such as \"report-run\", to keep two runs from"
						+ " overlapping when the leadership changes hands, or remove @DistributedLock");
		});
	}

	@Test
	void methodLockingALockOfItsOwnRunsOnTheLeader() {
		this.contextRunner.withBean(SummaryRunJob.class).run((context) -> {
			awaitLeading(context);
			assertThat(context.getBean(SummaryRunJob.class).run()).isEqualTo("ran");
		});
	}

	private static void awaitLeading(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		Leadership leadership = context.getBean(LockRegistry.class).leadership("report");
		await().atMost(AT_ONCE).until(leadership::isLeader);
	}

	/**
	 * Wait until the second instance waits in the queue of the lock of {@code report}.
	 */
	private static void awaitStandby() {
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), AT_ONCE)) {
			await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(client.sync(), "lock:report") == 1);
		}
	}

	/**
	 * Call every method of the jobs of the instance that leads, and check that each ran.
	 */
	private static void assertRuns(ReportJobs jobs) {
		jobs.generate();
		assertThat(jobs.count()).isPositive();
		assertThat(jobs.summary()).contains("summary");
		assertThat(jobs.later()).isCompletedWithValue("later");
		assertThat(jobs.mono().block(AT_ONCE)).isEqualTo("mono");
		assertThat(jobs.flux().collectList().block(AT_ONCE)).containsExactly("a", "b");
	}

	private static InvalidLockAnnotationException startupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
		assertThat(cause).isInstanceOf(InvalidLockAnnotationException.class);
		return (InvalidLockAnnotationException) cause;
	}

	/**
	 * Jobs of every result kind that only the leader of {@code report} runs, counting the
	 * calls that ran.
	 */
	static class ReportJobs {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@LeaderOnly("report")
		public void generate() {
			this.calls.incrementAndGet();
		}

		@LeaderOnly("report")
		public @Nullable Integer count() {
			return this.calls.incrementAndGet();
		}

		@LeaderOnly("report")
		public Optional<String> summary() {
			this.calls.incrementAndGet();
			return Optional.of("summary");
		}

		@LeaderOnly("report")
		public CompletableFuture<@Nullable String> later() {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture("later");
		}

		@LeaderOnly("report")
		public Mono<String> mono() {
			this.calls.incrementAndGet();
			return Mono.just("mono");
		}

		@LeaderOnly("report")
		public Flux<String> flux() {
			this.calls.incrementAndGet();
			return Flux.fromIterable(List.of("a", "b"));
		}

	}

	/**
	 * A job that only the leader of {@code report} runs, holding the lock of
	 * {@code export}, and that fails at once when another holds that lock.
	 */
	static class ExportJob {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@LeaderOnly("report")
		@DistributedLock(name = "export", waitTime = "0s", onFailure = LockFailureAction.THROW)
		public @Nullable String export() {
			this.calls.incrementAndGet();
			return "exported";
		}

	}

	static class SummaryJob {

		@LeaderOnly("report")
		@DistributedLock(name = "report", onFailure = LockFailureAction.SKIP)
		public void run() {
		}

	}

	static class SummaryRunJob {

		@LeaderOnly("report")
		@DistributedLock(name = "report-run", onFailure = LockFailureAction.SKIP)
		public @Nullable String run() {
			return "ran";
		}

	}

	static class PlaceholderJob {

		@LeaderOnly("${jobs.leadership}")
		public @Nullable String run() {
			return "ran";
		}

	}

	static class AuditJob {

		@LeaderOnly("audit")
		public void run() {
		}

	}

	static class CountingJob {

		@LeaderOnly("report")
		public int count() {
			return 1;
		}

	}

}
