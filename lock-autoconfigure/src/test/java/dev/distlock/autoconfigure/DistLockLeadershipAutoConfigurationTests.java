package dev.distlock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaderOnly;
import dev.distlock.Leadership;
import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LeaseOptions;
import dev.distlock.LockEvent;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistLockLeadershipAutoConfiguration} on a real {@code redis-server}:
 * the leaderships of {@code distlock.leader.names} campaign while the application context
 * runs, tell their terms as application events, and hand over at once when the context
 * closes.
 */
@Timeout(60)
class DistLockLeadershipAutoConfigurationTests {

	/** A bound well under the default lease of 30 s for what must happen at once. */
	private static final Duration AT_ONCE = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockLeadershipAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void configuredLeadershipsCampaignWithTheContextAndTellTheirTermsAsApplicationEvents() {
		this.contextRunner.withPropertyValues("distlock.leader.names=report,audit")
			.withBean(LeadershipEvents.class)
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				await().atMost(AT_ONCE)
					.until(() -> registry.leadership("report").isLeader() && registry.leadership("audit").isLeader());
				assertThat(context.getBean(LeadershipEvents.class).events).extracting(LockEvent::name)
					.containsExactlyInAnyOrder("report", "audit")
					.hasSize(2);
			});
	}

	@Test
	void soleInstanceRunsTheFirstTickOfAScheduledLeaderOnlyJob() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistLockInterceptionAutoConfiguration.class))
			.withPropertyValues("distlock.leader.names=report")
			.withUserConfiguration(HourlyReportConfiguration.class)
			.run((context) -> {
				HourlyReport report = context.getBean(HourlyReport.class);
				await().atMost(AT_ONCE).untilAsserted(() -> assertThat(report.runs()).isOne());
			});
	}

	@Test
	void leaderWorkStartedOnTheGrantStopsWhenTheTermEnds() {
		this.contextRunner.withPropertyValues("distlock.leader.names=report")
			.withBean(ReportStore.class)
			.withBean(ReportFeed.class)
			.run((context) -> {
				Leadership leadership = context.getBean(LockRegistry.class).leadership("report");
				ReportStore store = context.getBean(ReportStore.class);
				long firstTerm = leadership.fencingToken().orElseThrow();
				await().atMost(AT_ONCE).until(() -> store.tokens.contains(firstTerm));
				leadership.yieldLeadership();
				await().atMost(AT_ONCE).until(leadership::isLeader);
				long secondTerm = leadership.fencingToken().orElseThrow();
				await().atMost(AT_ONCE).until(() -> store.tokens.contains(secondTerm));
				assertThat(store.tokens).containsOnly(firstTerm, secondTerm).isSorted();
			});
	}

	@Test
	void noLeadershipCampaignsWithoutNames() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ConfiguredLeaderships.class);
			assertThat(context.getBean(LockIntrospector.class).leaderships()).isEmpty();
		});
	}

	@Test
	void closingTheLeadersContextHandsTheLeadershipToTheStandbyAtOnce() {
		ConfigurableApplicationContext first = start();
		LockRegistry firstRegistry = first.getBean(LockRegistry.class);
		await().atMost(AT_ONCE).until(() -> firstRegistry.leadership("report").isLeader());
		long firstTerm = firstRegistry.leadership("report").fencingToken().orElseThrow();
		ConfigurableApplicationContext second = start();
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), AT_ONCE)) {
			await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(client.sync(), "lock:report") == 1);
		}
		LeadershipEvents firstEvents = first.getBean(LeadershipEvents.class);
		first.close();
		assertThat(firstEvents.events).usingRecursiveFieldByFieldElementComparatorIgnoringFields(TestLockRegistry.TERM)
			.containsExactly(TestLockRegistry.grant("report", firstTerm),
					new LeadershipRevokedEvent("report", "lock:report", firstTerm, "it stopped"));
		LockRegistry secondRegistry = second.getBean(LockRegistry.class);
		await().atMost(AT_ONCE).until(() -> secondRegistry.leadership("report").isLeader());
		assertThat(secondRegistry.leadership("report").fencingToken().orElseThrow()).isGreaterThan(firstTerm);
	}

	@Test
	void registryThatDoesNotElectLeadersFailsTheStartupWhenNamesAreConfigured() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockLeadershipAutoConfiguration.class))
			.withBean(LockRegistry.class, NoLeadershipRegistry::new)
			.withPropertyValues("distlock.leader.names=report")
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(UnsupportedOperationException.class)
				.hasMessageEndingWith("does not elect leaders"));
	}

	/**
	 * Start an application instance that campaigns for {@code report} and records its
	 * leadership events; the test closes it.
	 */
	private ConfigurableApplicationContext start() {
		SpringApplication application = new SpringApplication(LeadershipApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		ConfigurableApplicationContext context = application.run("--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redis.server().port(), "--spring.data.redis.timeout=5s",
				"--spring.main.banner-mode=off", "--distlock.leader.names=report");
		return this.closer.add(context);
	}

	/**
	 * An application with distlock's leader election, recording its leadership events.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
			DistLockLeadershipAutoConfiguration.class })
	static class LeadershipApplication {

		@Bean
		LeadershipEvents leadershipEvents() {
			return new LeadershipEvents();
		}

	}

	/**
	 * Records the leadership events the application publishes.
	 */
	static class LeadershipEvents {

		final List<LockEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void granted(LeadershipGrantedEvent event) {
			this.events.add(event);
		}

		@EventListener
		void revoked(LeadershipRevokedEvent event) {
			this.events.add(event);
		}

	}

	/**
	 * Schedules the {@link HourlyReport}.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class HourlyReportConfiguration {

		@Bean
		HourlyReport hourlyReport() {
			return new HourlyReport();
		}

	}

	/**
	 * A leader-only job that runs once an hour, from the start.
	 */
	static class HourlyReport {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@Scheduled(fixedRate = 1, timeUnit = TimeUnit.HOURS)
		@LeaderOnly("report")
		public void generate() {
			this.runs.incrementAndGet();
		}

	}

	/**
	 * The example of the user guide's "Leader election", as it is written there: leader
	 * work started on a thread of its own when the term is granted, which writes while
	 * the term lasts and is interrupted when it ends.
	 */
	static class ReportFeed {

		private final ReportStore store;

		ReportFeed(ReportStore store) {
			this.store = store;
		}

		// tag::leader-feed[]
		@EventListener
		void granted(LeadershipGrantedEvent event) {
			if (event.name().equals("report")) {
				LockLease term = event.term();
				Thread feed = new Thread(() -> feed(term), "report-feed");
				feed.start();
				// runs before the revocation is delivered
				term.onLoss((ended) -> feed.interrupt());
			}
		}

		private void feed(LockLease term) {
			try {
				while (term.isValid()) {
					this.store.write("report of " + Instant.now(), term.fencingToken());
					Thread.sleep(1_000);
				}
			}
			catch (InterruptedException ex) {
				// The term ended
			}
		}
		// end::leader-feed[]

	}

	/**
	 * Records the fencing token of each report written, in order.
	 */
	static class ReportStore {

		final List<Long> tokens = new CopyOnWriteArrayList<>();

		void write(String report, long fencingToken) {
			this.tokens.add(fencingToken);
		}

	}

	/**
	 * A registry of the application's own that elects no leaders.
	 */
	static class NoLeadershipRegistry implements LockRegistry {

		@Override
		public FencedLock obtain(String name, LeaseOptions options) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
			return Optional.empty();
		}

		@Override
		public FencedReadWriteLock readWriteLock(String name) {
			throw new UnsupportedOperationException();
		}

		@Override
		public DistributedSemaphore semaphore(String name, int permits) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Optional<Duration> remainingLease(String name) {
			return Optional.empty();
		}

	}

}
