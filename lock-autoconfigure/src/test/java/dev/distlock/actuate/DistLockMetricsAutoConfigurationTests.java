package dev.distlock.actuate;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.distlock.DistributedLock;
import dev.distlock.DistributedSemaphore;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.autoconfigure.DistLockLeadershipAutoConfiguration;
import dev.distlock.autoconfigure.DistLockMetricsAutoConfiguration;
import dev.distlock.observation.DefaultLockWaitObservationConvention;
import dev.distlock.observation.LockMeterObservationHandler;
import dev.distlock.observation.LockWaitContext;
import dev.distlock.observation.ObservationLockObserver;
import dev.distlock.redis.QuorumNodes;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistLockMetricsAutoConfiguration}: the observations of
 * {@link ObservationLockObserver} and the meters recorded from them, and the gauge of
 * leaderships, on a real {@code redis-server}.
 */
class DistLockMetricsAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class, DistLockMetricsAutoConfiguration.class))
		.withUserConfiguration(MeterRegistryConfiguration.class)
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	@Test
	@Timeout(30)
	void providesObservationLockObserverThatTheRegistryReportsTo() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockObserver.class);
			assertThat(context.getBean(LockObserver.class)).isInstanceOf(ObservationLockObserver.class);
			context.getBean(LockRegistry.class).acquire(LockName.keyed("order", "1"), Duration.ofSeconds(1)).release();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distlock.wait").tag("name", "order").tag("result", "acquired").timer().count())
				.isOne();
			assertThat(meters.get("distlock.hold").tag("name", "order").timer().count()).isOne();
		});
	}

	@Test
	@Timeout(30)
	void recordsAnnotatedLocksUnderTheAnnotationNameOnly() {
		this.contextRunner.withUserConfiguration(OrderConfiguration.class).run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.pay(1);
			orders.pay(2);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Timer wait = meters.get("distlock.wait").tag("name", "order").tag("result", "acquired").timer();
			assertThat(wait.count()).isEqualTo(2);
			assertThat(meters.get("distlock.hold").tag("name", "order").timer().count()).isEqualTo(2);
			assertThat(meters.getMeters()).filteredOn((meter) -> meter.getId().getName().startsWith("distlock."))
				.hasSize(2)
				.allSatisfy((meter) -> assertThat(meter.getId().getTag("name")).isEqualTo("order"));
			System.out.println("distlock meters after pay(1), pay(2):\n" + listing(meters));
		});
	}

	@Test
	@Timeout(30)
	void tagsAnnotatedLocksWithTheirWholeAnnotationNameColonsIncluded() {
		this.contextRunner.withUserConfiguration(JobsConfiguration.class).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			jobs.cleanup();
			jobs.report();
			jobs.invoice(7);
			assertThat(nameTags(context.getBean(MeterRegistry.class))).containsExactlyInAnyOrder("jobs:cleanup",
					"jobs:report", "billing:invoice");
		});
	}

	@Test
	@Timeout(30)
	void tagsProgrammaticLocksWithANameGivenWholeOrTheBaseOfAKeyedName() {
		this.contextRunner.run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			for (String tenant : List.of("acme", "globex")) {
				registry.acquire("tenant:" + tenant + ":invoices", Duration.ofSeconds(1)).release();
				registry.acquire(LockName.keyed("invoices", tenant), Duration.ofSeconds(1)).release();
			}
			assertThat(nameTags(context.getBean(MeterRegistry.class))).containsExactlyInAnyOrder("tenant:acme:invoices",
					"tenant:globex:invoices", "invoices");
		});
	}

	@Test
	@Timeout(30)
	void tracesTheKeyValueOfAProgrammaticKeyedLockAsAHighCardinalityValueOnly() {
		this.contextRunner.withUserConfiguration(ObservationRegistryConfiguration.class).run((context) -> {
			context.getBean(LockRegistry.class)
				.acquire(LockName.keyed("invoices", "acme"), Duration.ofSeconds(1))
				.release();
			assertThat(context.getBean(TestObservationRegistry.class)).hasObservationWithNameEqualTo("distlock.wait")
				.that()
				.hasOnlyKeys("name", "result", "key", "fencing.token")
				.hasLowCardinalityKeyValue("name", "invoices")
				.hasHighCardinalityKeyValue("key", "acme")
				.hasContextualNameEqualTo("distlock.wait invoices");
		});
	}

	@Test
	@Timeout(30)
	void countsAcquisitionsNotMadeWithinTheWaitTime() {
		this.contextRunner.run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			try (LockLease lease = registry.acquire("report", Duration.ofSeconds(1))) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> registry.acquire("report", Duration.ofMillis(100)));
			}
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Timer failedWait = meters.get("distlock.wait").tag("name", "report").tag("result", "failed").timer();
			assertThat(failedWait.count()).isOne();
			assertThat(failedWait.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(100);
			assertThat(meters.get("distlock.wait").tag("name", "report").tag("result", "acquired").timer().count())
				.isOne();
		});
	}

	@Test
	@Timeout(30)
	void measuresSemaphorePermitsLikeLocksUnderTheSemaphoresBaseName() {
		this.contextRunner.run((context) -> {
			DistributedSemaphore pool = context.getBean(LockRegistry.class).semaphore(LockName.keyed("pool", "eu"), 1);
			try (LockLease permit = pool.acquire(Duration.ofSeconds(1))) {
				assertThat(pool.tryAcquire(Duration.ofMillis(100))).isEmpty();
			}
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distlock.wait").tag("name", "pool").tag("result", "acquired").timer().count())
				.isOne();
			assertThat(meters.get("distlock.wait").tag("name", "pool").tag("result", "failed").timer().count()).isOne();
			assertThat(meters.get("distlock.hold").tag("name", "pool").timer().count()).isOne();
		});
	}

	@Test
	@Timeout(30)
	void countsLostLocks() {
		this.contextRunner.run((context) -> {
			RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
			registry.acquire(LockName.keyed("order", "7"), Duration.ofSeconds(1));
			String key = registry.heldLocks().get(0).key();
			try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
				client.sync().set(key, "another-owner");
			}
			registry.renewLeases();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distlock.lost").tag("name", "order").counter().count()).isOne();
			assertThat(registry.heldLocks()).isEmpty();
		});
	}

	@Test
	@Timeout(30)
	void reportsToTheMeterRegistryThatSpringBootConfigures() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
							CompositeMeterRegistryAutoConfiguration.class, DataRedisAutoConfiguration.class,
							DistLockAutoConfiguration.class, DistLockMetricsAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ObservationLockObserver.class);
				context.getBean(LockRegistry.class)
					.acquire(LockName.keyed("order", "1"), Duration.ofSeconds(1))
					.release();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("distlock.wait").tag("name", "order").tag("result", "acquired").timer().count())
					.isOne();
			});
	}

	@Test
	@Timeout(30)
	void recordsTheMetersFromTheObservationsOfSpringBootsRegistryOnceWithoutItsDefaultMeters() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
					DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
					DistLockMetricsAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(ObservationLockObserver.class)
					.hasSingleBean(LockMeterObservationHandler.class);
				LockRegistry registry = context.getBean(LockRegistry.class);
				registry.acquire(LockName.keyed("order", "1"), Duration.ofSeconds(1)).release();
				registry.acquire(LockName.keyed("order", "2"), Duration.ofSeconds(1)).release();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.getMeters()).extracting(Meter::getId)
					.filteredOn((id) -> id.getName().startsWith("distlock"))
					.extracting((id) -> id.getName() + id.getTags())
					.containsExactlyInAnyOrder("distlock.wait[tag(name=order), tag(result=acquired)]",
							"distlock.hold[tag(name=order), tag(result=released)]");
				assertThat(meters.get("distlock.wait").timer().count()).isEqualTo(2);
				assertThat(meters.get("distlock.hold").timer().count()).isEqualTo(2);
			});
	}

	@Test
	@Timeout(30)
	void observesAnnotatedLocksWithTheApplicationsObservationRegistryUnderTheAnnotationName() {
		this.contextRunner.withUserConfiguration(ObservationRegistryConfiguration.class, OrderConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ObservationLockObserver.class);
				context.getBean(OrderService.class).pay(7);
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasObservationWithNameEqualTo("distlock.wait")
					.that()
					.hasLowCardinalityKeyValue("name", "order")
					.hasLowCardinalityKeyValue("result", "acquired")
					.hasHighCardinalityKeyValue("key", "7")
					.hasBeenStopped()
					.backToTestObservationRegistry()
					.hasObservationWithNameEqualTo("distlock.hold")
					.that()
					.hasLowCardinalityKeyValue("result", "released")
					.hasBeenStopped();
			});
	}

	@Test
	@Timeout(30)
	void followsTheApplicationsConventionInsteadOfTheDefault() {
		this.contextRunner
			.withUserConfiguration(ObservationRegistryConfiguration.class, WaitConventionConfiguration.class)
			.run((context) -> {
				context.getBean(LockRegistry.class)
					.acquire(LockName.keyed("order", "1"), Duration.ofSeconds(1))
					.release();
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasObservationWithNameEqualTo("distlock.wait")
					.that()
					.hasContextualNameEqualTo("wait for order")
					.backToTestObservationRegistry()
					.hasObservationWithNameEqualTo("distlock.hold")
					.that()
					.hasContextualNameEqualTo("distlock.hold order");
			});
	}

	@Test
	@Timeout(30)
	void gaugesWhetherThisInstanceLeadsEachConfiguredLeadership() {
		ApplicationContextRunner instances = this.contextRunner
			.withConfiguration(AutoConfigurations.of(DistLockLeadershipAutoConfiguration.class))
			.withPropertyValues("distlock.leader.names=report");
		instances.run((leader) -> {
			Gauge leading = leaderGauge(leader, "report");
			await().atMost(Duration.ofSeconds(5)).until(() -> leading.value() == 1);
			instances.run((standby) -> {
				Gauge standing = leaderGauge(standby, "report");
				assertThat(standing.value()).isZero();
				leader.getBean(LockRegistry.class).leadership("report").stop();
				assertThat(leading.value()).isZero();
				await().atMost(Duration.ofSeconds(5)).until(() -> standing.value() == 1);
			});
		});
	}

	@Test
	@Timeout(60)
	void countsEachRedlockNodesRepliesToAttemptsToTakeALockByOutcomeTaggedWithItsAddress() throws Exception {
		try (QuorumNodes nodes = new QuorumNodes(3)) {
			nodes.awaitUp(Duration.ofMillis(1012));
			nodes.node(2).kill();
			String down = "127.0.0.1:" + nodes.node(2).port();
			List<String> uris = List.of(nodes.uris().get(0), nodes.uris().get(1), "redis://:secret@" + down);
			try (TestLockRegistry rival = TestLockRegistry.createOnQuorum(nodes.uris(),
					TestLockRegistry.settings(Duration.ofSeconds(1)))) {
				this.contextRunner
					.withPropertyValues("distlock.redlock.nodes=" + String.join(",", uris), "distlock.lease-time=1s",
							"spring.data.redis.timeout=1s")
					.run((context) -> {
						LockRegistry registry = context.getBean(LockRegistry.class);
						MeterRegistry meters = context.getBean(MeterRegistry.class);
						registry.acquire("ledger", Duration.ZERO).release();
						try (LockLease held = rival.registry().acquire("ledger", Duration.ZERO)) {
							assertThat(registry.tryAcquire("ledger", Duration.ZERO)).isEmpty();
							// Decided without the slower up node, which must still
							// find the lock held
							await().atMost(Duration.ofSeconds(5))
								.untilAsserted(() -> assertThat(List.of(nodes.uris().get(0), nodes.uris().get(1)))
									.allSatisfy((up) -> assertThat(
											nodeReplies(meters, up.substring("redis://".length()), "refused"))
										.isOne()));
						}
						await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
							for (String up : List.of(nodes.uris().get(0), nodes.uris().get(1))) {
								String node = up.substring("redis://".length());
								assertThat(nodeReplies(meters, node, "granted")).as(node).isOne();
								assertThat(nodeReplies(meters, node, "refused")).as(node).isOne();
								assertThat(nodeReplies(meters, node, "failed")).as(node).isZero();
							}
							assertThat(nodeReplies(meters, down, "granted")).isZero();
							assertThat(nodeReplies(meters, down, "refused")).isZero();
							assertThat(nodeReplies(meters, down, "failed")).isEqualTo(2);
						});
						assertThat(meters.find("distlock.redlock.replies").meters()).hasSize(9)
							.allSatisfy((meter) -> assertThat(meter.getId().getTag("node")).doesNotContain("secret"));
					});
			}
		}
	}

	@Test
	void backsOffWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObserver.class));
	}

	@Test
	void backsOffWithoutMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
					DistLockMetricsAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObserver.class));
	}

	@Test
	void backsOffWhenDistLockIsDisabled() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObserver.class));
	}

	@Test
	@Timeout(30)
	void keepsItsObservationsBesideAnObserverOfTheApplicationsOwnAndTellsBoth() {
		this.contextRunner.withUserConfiguration(UserObserverConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ObservationLockObserver.class).hasBean("userLockObserver");
			context.getBean(LockRegistry.class).acquire(LockName.keyed("order", "1"), Duration.ofSeconds(1)).release();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distlock.wait").tag("name", "order").tag("result", "acquired").timer().count())
				.isOne();
			assertThat(meters.get("distlock.hold").tag("name", "order").timer().count()).isOne();
			assertThat(context.getBean(RecordingLockObserver.class).told).containsExactly("wait order:1",
					"acquired order:1", "released order:1");
		});
	}

	private static double nodeReplies(MeterRegistry meters, String node, String outcome) {
		return meters.get("distlock.redlock.replies").tag("node", node).tag("outcome", outcome).counter().count();
	}

	private static Gauge leaderGauge(AssertableApplicationContext context, String name) {
		assertThat(context).hasNotFailed();
		return context.getBean(MeterRegistry.class).get("distlock.leader").tag("name", name).gauge();
	}

	/**
	 * Return the distinct values of the {@code name} tag of distlock's meters.
	 */
	private static Set<String> nameTags(MeterRegistry meters) {
		return meters.getMeters()
			.stream()
			.filter((meter) -> meter.getId().getName().startsWith("distlock."))
			.map((meter) -> meter.getId().getTag("name"))
			.collect(Collectors.toSet());
	}

	private static String listing(MeterRegistry meters) {
		return meters.getMeters()
			.stream()
			.sorted(Comparator.comparing((Meter meter) -> meter.getId().toString()))
			.map((meter) -> meter.getId().getName() + meter.getId().getTags() + " " + meter.measure())
			.collect(Collectors.joining("\n"));
	}

	@Configuration(proxyBeanMethods = false)
	static class MeterRegistryConfiguration {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ObservationRegistryConfiguration {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WaitConventionConfiguration {

		@Bean
		DefaultLockWaitObservationConvention waitObservationConvention() {
			return new DefaultLockWaitObservationConvention() {

				@Override
				public String getContextualName(LockWaitContext context) {
					return "wait for " + context.getLockName().base();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OrderConfiguration {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserObserverConfiguration {

		@Bean
		RecordingLockObserver userLockObserver() {
			return new RecordingLockObserver();
		}

	}

	static class OrderService {

		@DistributedLock(name = "order", key = "#id")
		public void pay(long id) {
		}

	}

	static class Jobs {

		@DistributedLock(name = "jobs:cleanup")
		public void cleanup() {
		}

		@DistributedLock(name = "jobs:report")
		public void report() {
		}

		@DistributedLock(name = "billing:invoice", key = "#id")
		public void invoice(long id) {
		}

	}

	/**
	 * Records what it is told of each lock.
	 */
	static class RecordingLockObserver implements LockObserver {

		final List<String> told = new CopyOnWriteArrayList<>();

		@Override
		public Wait waitStarted(LockName name) {
			this.told.add("wait " + name);
			return new Wait() {

				@Override
				public Hold acquired(long fencingToken) {
					RecordingLockObserver.this.told.add("acquired " + name);
					return new Hold() {

						@Override
						public void released() {
							RecordingLockObserver.this.told.add("released " + name);
						}

					};
				}

			};
		}

	}

}
