package dev.distlock.actuate;

import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.distlock.FencedLock;
import dev.distlock.HeldLock;
import dev.distlock.HoldKind;
import dev.distlock.Leadership;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import dev.distlock.actuate.DistLockEndpoint.HeldLockDescriptor;
import dev.distlock.actuate.DistLockEndpoint.HeldLocksDescriptor;
import dev.distlock.actuate.DistLockEndpoint.LeadershipDescriptor;
import dev.distlock.actuate.DistLockEndpoint.NodeDescriptor;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockEndpointAutoConfiguration;
import dev.distlock.redis.QuorumNodes;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistLockEndpointAutoConfiguration} and {@link DistLockEndpoint} on a
 * real {@code redis-server}.
 */
@Timeout(30)
class DistLockEndpointAutoConfigurationTests {

	private static final Principal ALICE = () -> "alice";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s", "management.endpoints.web.exposure.include=distlock");

	@Test
	void listsHeldLocksWithAllTheirFieldsWhenValuesAreShown() {
		this.contextRunner.withPropertyValues("management.endpoint.distlock.show-values=always").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(DistLockEndpoint.class);
			RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
			FencedLock order = registry.obtain("order:42");
			order.lock();
			try (LockLease report = registry.acquire("report", Duration.ofSeconds(1))) {
				Thread.sleep(20);
				HeldLocksDescriptor held = context.getBean(DistLockEndpoint.class).locks(SecurityContext.NONE);
				assertThat(held.locks()).hasSize(2);
				assertThat(held.nodes()).as("on one Redis").isEmpty();
				HeldLockDescriptor first = held.locks().get(0);
				assertThat(first.name()).isEqualTo("order:42");
				assertThat(first.key()).isEqualTo("lock:order:42");
				assertThat(first.fencingToken()).isEqualTo(order.fencingToken()).isPositive();
				assertThat(first.heldForMs()).isGreaterThanOrEqualTo(20);
				assertThat(first.remainingTtlMs()).isPositive().isLessThanOrEqualTo(30_000);
				assertThat(first.owner()).isEqualTo(Thread.currentThread().getName());
				HeldLockDescriptor second = held.locks().get(1);
				assertThat(second.name()).isEqualTo("report");
				assertThat(second.key()).isEqualTo("lock:report");
				assertThat(second.fencingToken()).isEqualTo(report.fencingToken()).isPositive();
				assertThat(second.owner()).isEqualTo("lease");
				String json = JsonMapper.builder().build().writeValueAsString(held);
				System.out.println("distlock endpoint: " + json);
				assertThat(json).startsWith("{\"locks\":[{")
					.contains("\"name\":\"order:42\"", "\"key\":\"lock:order:42\"", "\"fencingToken\":",
							"\"heldForMs\":", "\"remainingTtlMs\":", "\"owner\":\"lease\"", "\"kind\":\"exclusive\"");
			}
			finally {
				order.unlock();
			}
			assertThat(context.getBean(DistLockEndpoint.class).locks(SecurityContext.NONE).locks()).isEmpty();
		});
	}

	@Test
	void listsTheLeadershipsCampaignedForWithTheirTermsAndTheirNamesWhole() {
		try (TestLockRegistry otherInstance = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			Leadership audit = otherInstance.registry().leadership("audit");
			audit.start();
			await().atMost(Duration.ofSeconds(5)).until(audit::isLeader);
			this.contextRunner.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				Leadership report = registry.leadership("report:eu");
				report.start();
				registry.leadership("audit").start();
				registry.leadership("stopped").start();
				registry.leadership("stopped").stop();
				await().atMost(Duration.ofSeconds(5)).until(report::isLeader);
				HeldLocksDescriptor described = context.getBean(DistLockEndpoint.class).locks(SecurityContext.NONE);
				long term = report.fencingToken().orElseThrow();
				assertThat(described.leaderships()).containsExactly(new LeadershipDescriptor("audit", false, null),
						new LeadershipDescriptor("report:eu", true, term));
				assertThat(described.locks()).extracting(HeldLockDescriptor::name, HeldLockDescriptor::fencingToken)
					.containsExactly(tuple("report:eu", term));
				assertThat(JsonMapper.builder().build().writeValueAsString(described))
					.contains("\"leaderships\":[{\"name\":\"audit\",\"leader\":false,\"fencingToken\":null},"
							+ "{\"name\":\"report:eu\",\"leader\":true,\"fencingToken\":" + term + "}]");
			});
		}
	}

	@Test
	void listsEachRedlockNodeWithItsAddressAndWhetherItAnswers() throws Exception {
		try (QuorumNodes nodes = new QuorumNodes(3)) {
			nodes.node(1).kill();
			String down = "127.0.0.1:" + nodes.node(1).port();
			List<String> uris = List.of(nodes.uris().get(0), "redis://:secret@" + down, nodes.uris().get(2));
			this.contextRunner
				.withPropertyValues("distlock.redlock.nodes=" + String.join(",", uris), "spring.data.redis.timeout=1s")
				.run((context) -> {
					HeldLocksDescriptor described = context.getBean(DistLockEndpoint.class).locks(SecurityContext.NONE);
					assertThat(described.nodes()).extracting(NodeDescriptor::address)
						.containsExactly(nodes.uris().get(0).substring("redis://".length()), down,
								nodes.uris().get(2).substring("redis://".length()));
					assertThat(described.nodes()).extracting(NodeDescriptor::state)
						.satisfiesExactly((state) -> assertThat(state).isEqualTo("UP"),
								(state) -> assertThat(state).startsWith("DOWN: "),
								(state) -> assertThat(state).isEqualTo("UP"));
					assertThat(JsonMapper.builder().build().writeValueAsString(described))
						.contains("\"nodes\":[{\"address\":\"" + nodes.uris().get(0).substring("redis://".length())
								+ "\",\"state\":\"UP\"}")
						.doesNotContain("secret");
				});
		}
	}

	@Test
	void masksKeyValuesByDefault() {
		assertMasked(heldLocksAsSeenBy(caller(ALICE, "ADMIN")));
	}

	@Test
	void masksKeyValuesInTheJson() {
		String json = JsonMapper.builder()
			.build()
			.writeValueAsString(new HeldLocksDescriptor(heldLocksAsSeenBy(SecurityContext.NONE), List.of(), List.of()));
		assertThat(json).contains("\"name\":\"user:******\"", "\"key\":\"lock:user:******\"")
			.doesNotContain("alice")
			.doesNotContain("order:42");
	}

	@Test
	void showsKeyValuesAlways() {
		assertShown(heldLocksAsSeenBy(SecurityContext.NONE, "management.endpoint.distlock.show-values=always"));
	}

	@Test
	void showsKeyValuesWhenAuthorizedToAnAuthenticatedCaller() {
		assertShown(heldLocksAsSeenBy(caller(ALICE), "management.endpoint.distlock.show-values=when-authorized"));
	}

	@Test
	void masksKeyValuesWhenAuthorizedFromACallerWithoutPrincipal() {
		assertMasked(
				heldLocksAsSeenBy(SecurityContext.NONE, "management.endpoint.distlock.show-values=when-authorized"));
	}

	@Test
	void showsKeyValuesWhenAuthorizedToACallerInOneOfTheRoles() {
		assertShown(heldLocksAsSeenBy(caller(ALICE, "OPS"), "management.endpoint.distlock.show-values=when-authorized",
				"management.endpoint.distlock.roles=ADMIN,OPS"));
	}

	@Test
	void masksKeyValuesWhenAuthorizedFromACallerInNoneOfTheRoles() {
		assertMasked(
				heldLocksAsSeenBy(caller(ALICE, "USER"), "management.endpoint.distlock.show-values=when-authorized",
						"management.endpoint.distlock.roles=ADMIN,OPS"));
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenEndpointIsNotExposed() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
					DistLockEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenEndpointIsDisabled() {
		this.contextRunner.withPropertyValues("management.endpoint.distlock.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenDistLockIsDisabled() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenUserDefinesEndpoint() {
		this.contextRunner.withUserConfiguration(UserEndpointConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(DistLockEndpoint.class).hasBean("userEndpoint"));
	}

	@Test
	void listsTheHeldLocksOfAnyRegistryThatCanBeInspected() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockEndpointAutoConfiguration.class))
			.withUserConfiguration(InspectedRegistryConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=distlock")
			.run((context) -> assertThat(context.getBean(DistLockEndpoint.class).locks(SecurityContext.NONE).locks())
				.extracting(HeldLockDescriptor::name, HeldLockDescriptor::key)
				.containsExactly(tuple("report", "store:report"), tuple("order:******", "******")));
	}

	/**
	 * Hold the locks of key values {@code 42} of {@code order} and
	 * {@code alice@example.com} of {@code user}, and the locks named whole {@code report}
	 * and {@code tenant:acme:invoices}, in a context with the given properties, and
	 * return the held locks as the endpoint describes them to the caller.
	 */
	private List<HeldLockDescriptor> heldLocksAsSeenBy(SecurityContext caller, String... properties) {
		List<HeldLockDescriptor> seen = new ArrayList<>();
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			try (LockLease order = registry.acquire(LockName.keyed("order", "42"), Duration.ZERO);
					LockLease user = registry.acquire(LockName.keyed("user", "alice@example.com"), Duration.ZERO);
					LockLease report = registry.acquire("report", Duration.ZERO);
					LockLease invoices = registry.acquire("tenant:acme:invoices", Duration.ZERO)) {
				seen.addAll(context.getBean(DistLockEndpoint.class).locks(caller).locks());
			}
		});
		return seen;
	}

	private static void assertShown(List<HeldLockDescriptor> locks) {
		assertThat(locks).extracting(HeldLockDescriptor::name, HeldLockDescriptor::key)
			.containsExactlyInAnyOrder(tuple("order:42", "lock:order:42"),
					tuple("user:alice%40example.com", "lock:user:alice%40example.com"), tuple("report", "lock:report"),
					tuple("tenant:acme:invoices", "lock:tenant:acme:invoices"));
	}

	private static void assertMasked(List<HeldLockDescriptor> locks) {
		assertThat(locks).extracting(HeldLockDescriptor::name, HeldLockDescriptor::key)
			.containsExactlyInAnyOrder(tuple("order:******", "lock:order:******"),
					tuple("user:******", "lock:user:******"), tuple("report", "lock:report"),
					tuple("tenant:acme:invoices", "lock:tenant:acme:invoices"));
	}

	private static SecurityContext caller(Principal principal, String... roles) {
		return new SecurityContext() {

			@Override
			public Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return Set.of(roles).contains(role);
			}

		};
	}

	@Configuration(proxyBeanMethods = false)
	static class InspectedRegistryConfiguration {

		@Bean
		LockIntrospector inspectedRegistry() {
			HeldLock report = new HeldLock("report", null, "store:report", 7, Duration.ofSeconds(1),
					Duration.ofSeconds(2), "lease", HoldKind.EXCLUSIVE);
			HeldLock order = new HeldLock("order:42", "42", "orders/42", 8, Duration.ofSeconds(1),
					Duration.ofSeconds(2), "lease", HoldKind.EXCLUSIVE);
			return new LockIntrospector() {

				@Override
				public List<HeldLock> heldLocks() {
					return List.of(report, order);
				}

				@Override
				public void ping() {
				}

				@Override
				public Duration renewalPeriod() {
					return Duration.ofSeconds(10);
				}

				@Override
				public Duration renewalDelay() {
					return Duration.ZERO;
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserEndpointConfiguration {

		@Bean
		DistLockEndpoint userEndpoint(RedisLockRegistry registry) {
			return new DistLockEndpoint(registry, Show.NEVER, Set.of());
		}

	}

}
