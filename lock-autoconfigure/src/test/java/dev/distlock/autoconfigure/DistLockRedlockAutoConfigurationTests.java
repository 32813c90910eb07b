package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.DistributedLock;
import dev.distlock.LockLease;
import dev.distlock.LockMode;
import dev.distlock.LockRegistry;
import dev.distlock.aop.InvalidLockAnnotationException;
import dev.distlock.redis.QuorumNodes;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.LiveThreads;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistLockAutoConfiguration} with {@code distlock.redlock.nodes}: the
 * registry locks on a quorum of real {@code redis-server} processes rather than on
 * {@code spring.data.redis.*}, and URIs it cannot use or annotations it cannot serve fail
 * the startup with a message that says what to do.
 */
@Timeout(60)
class DistLockRedlockAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** A Lettuce event loop thread, as {@link LiveThreads} names it, with its group. */
	private static final Pattern EVENT_LOOP_THREAD = Pattern.compile("lettuce-\\w+EventLoop-(\\d+)-\\d+#\\d+");

	private static QuorumNodes nodes;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s", "distlock.lease-time=2s");

	@BeforeAll
	static void startNodes() {
		nodes = new QuorumNodes(3);
	}

	@AfterAll
	static void stopNodes() throws Exception {
		nodes.close();
	}

	@Test
	void nodesAndDriftFactorBindAndTheRegistryLocksOnAMajorityOfTheNodes() {
		nodes.awaitUp(Duration.ofMillis(2022));
		this.contextRunner
			.withPropertyValues("distlock.redlock.nodes=" + String.join(",", nodes.uris()),
					"distlock.redlock.drift-factor=0.02")
			.run((context) -> {
				assertThat(context).hasNotFailed().getBean(LockRegistry.class).isInstanceOf(RedisLockRegistry.class);
				DistLockProperties.Redlock redlock = context.getBean(DistLockProperties.class).getRedlock();
				assertThat(redlock.getNodes()).isEqualTo(nodes.uris());
				assertThat(redlock.getDriftFactor()).isEqualTo(0.02);
				try (LockLease lease = context.getBean(LockRegistry.class).acquire("ledger", Duration.ZERO)) {
					assertThat(lease.fencingToken()).isPositive();
					assertThat(nodesHolding("lock:ledger")).as("nodes holding the key").isGreaterThanOrEqualTo(2);
					try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(),
							Duration.ofSeconds(2))) {
						assertThat(client.sync().exists("lock:ledger")).as("on spring.data.redis.*").isZero();
					}
				}
			});
	}

	@Test
	void clientsOfTheNodesShareOneSetOfEventLoops() {
		nodes.awaitUp(Duration.ofMillis(2022));
		Set<String> before = LiveThreads.now();
		this.contextRunner.withPropertyValues("distlock.redlock.nodes=" + String.join(",", nodes.uris()))
			.run((context) -> {
				context.getBean(LockRegistry.class).acquire("ledger", Duration.ZERO).release();
				Set<String> started = LiveThreads.now();
				started.removeAll(before);
				assertThat(started.stream()
					.map(EVENT_LOOP_THREAD::matcher)
					.filter(Matcher::matches)
					.map((thread) -> thread.group(1))
					.distinct()).as("event loop groups of the nodes' connections").hasSize(1);
			});
	}

	@Test
	void nodeUriThatIsNotARedisUriFailsTheStartupAndShowsTheForm() {
		this.contextRunner
			.withPropertyValues(
					"distlock.redlock.nodes=redis://127.0.0.1:7001,http://127.0.0.1:7002," + "redis://127.0.0.1:7003")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Failed to bind properties under 'distlock.redlock'")
				.hasStackTraceContaining("Unable to set value for property nodes")
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("'http://127.0.0.1:7002' is not the URI of a Redis primary: the scheme must be redis or "
						+ "rediss; use redis://[user:password@]host[:port][/database] (rediss:// for TLS, user and "
						+ "password URL-encoded)"));
	}

	@Test
	void fewerThanThreeNodesFailTheStartup() {
		this.contextRunner.withPropertyValues("distlock.redlock.nodes=redis://127.0.0.1:7001,redis://127.0.0.1:7002")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("must name at least 3 independent Redis primaries for a majority to survive the loss "
						+ "of one, was 2"));
	}

	@Test
	void nodeNamedTwiceFailsTheStartup() {
		this.contextRunner
			.withPropertyValues(
					"distlock.redlock.nodes=redis://127.0.0.1:7001,redis://127.0.0.1:7002," + "redis://127.0.0.1:7001")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("must name every node once, since each counts towards a majority"));
	}

	@Test
	void replicasToAckWithRedlockFailsTheStartup() {
		this.contextRunner
			.withPropertyValues("distlock.redlock.nodes=" + String.join(",", nodes.uris()),
					"distlock.redis.replicas-to-ack=1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("distlock.redlock.nodes locks on independent primaries and waits for no replicas: "
						+ "remove distlock.redis.replicas-to-ack"));
	}

	@Test
	void sharedLockAnnotationFailsTheStartupOnRedlockNamingTheMethod() {
		this.contextRunner.withPropertyValues("distlock.redlock.nodes=" + String.join(",", nodes.uris()))
			.withUserConfiguration(CatalogConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessage("@DistributedLock on CatalogService.read() of bean 'catalogService', attribute 'mode': "
						+ "Redlock (distlock.redlock.nodes) does not offer read/write locks: only locks and leases are"
						+ " taken on a quorum of nodes; use them, or remove distlock.redlock.nodes to lock on one Redis"));
	}

	@Test
	void concurrencyLimitAnnotationFailsTheStartupOnRedlockNamingTheMethod() {
		this.contextRunner.withPropertyValues("distlock.redlock.nodes=" + String.join(",", nodes.uris()))
			.withUserConfiguration(ExportConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageStartingWith(
						"@DistributedConcurrencyLimit on ExportService.export() of bean 'exportService',"
								+ " attribute 'limit': Redlock (distlock.redlock.nodes) does not offer semaphores"));
	}

	private static long nodesHolding(String key) {
		long holding = 0;
		for (String uri : nodes.uris()) {
			try (RedisTestClient client = RedisTestClient.connect(uri, Duration.ofSeconds(2))) {
				holding += client.sync().exists(key);
			}
		}
		return holding;
	}

	@Configuration(proxyBeanMethods = false)
	static class CatalogConfiguration {

		@Bean
		CatalogService catalogService() {
			return new CatalogService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ExportConfiguration {

		@Bean
		ExportService exportService() {
			return new ExportService();
		}

	}

	static class CatalogService {

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		Optional<String> read() {
			return Optional.empty();
		}

	}

	static class ExportService {

		@DistributedConcurrencyLimit(name = "exports", limit = "2")
		List<String> export() {
			return List.of();
		}

	}

}
