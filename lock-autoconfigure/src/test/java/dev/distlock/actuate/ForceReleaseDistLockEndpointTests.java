package dev.distlock.actuate;

import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.actuate.ForceReleaseDistLockEndpoint.ForceReleaseDescriptor;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockEndpointAutoConfiguration;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.actuate.audit.listener.AuditListener;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointHttpMethod;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the force release of {@link ForceReleaseDistLockEndpoint}, auto-configured by
 * {@link DistLockEndpointAutoConfiguration}, on a real {@code redis-server}; other
 * application instances are registries of their own.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
class ForceReleaseDistLockEndpointTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final String ENABLED = "management.endpoint.distlock.force-release.enabled=true";

	private static final SecurityContext ALICE = new SecurityContext() {

		@Override
		public Principal getPrincipal() {
			return () -> "alice";
		}

		@Override
		public boolean isUserInRole(String role) {
			return false;
		}

	};

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockEndpointAutoConfiguration.class))
		.withUserConfiguration(AuditEventsConfiguration.class)
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s", "management.endpoints.web.exposure.include=distlock");

	@Test
	void forceReleaseFreesALockOfAnotherInstanceWhoseNextRenewalReportsTheLoss() {
		try (TestLockRegistry holder = instance()) {
			LockLease held = holder.registry().acquire("order", Duration.ZERO);
			this.contextRunner.withPropertyValues(ENABLED).run((context) -> {
				assertThat(endpoint(context).forceRelease(new String[] { "order" }, ALICE))
					.isEqualTo(new ForceReleaseDescriptor("order", true, held.fencingToken()));
				assertThat(context.getBean(RedisLockRegistry.class).isLocked("order")).isFalse();
			});
			assertThat(holder.lostEvents()).as("before its next renewal").isEmpty();
			holder.registry().renewLeases();
			assertThat(held.isValid()).isFalse();
			await().atMost(WAIT)
				.untilAsserted(() -> assertThat(holder.lostEvents()).singleElement().satisfies((event) -> {
					assertThat(event.name()).isEqualTo("order");
					assertThat(event.fencingToken()).isEqualTo(held.fencingToken());
				}));
			assertThatExceptionOfType(LockLostException.class).isThrownBy(held::release);
		}
	}

	@Test
	void waiterOfAnotherInstanceGetsAForceReleasedLockAtOnce() throws Exception {
		try (TestLockRegistry holder = instance();
				TestLockRegistry waiting = instance();
				TestThread waiter = TestThread.start("waiter")) {
			LockLease held = holder.registry().acquire("order", Duration.ZERO);
			this.contextRunner.withPropertyValues(ENABLED).run((context) -> {
				CompletableFuture<LockLease> acquired = waiter
					.call(() -> waiting.registry().acquire("order", Duration.ofSeconds(20)));
				waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, Duration.ofSeconds(10));
				endpoint(context).forceRelease(new String[] { "order" }, ALICE);
				try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(10))) {
					// A plain delete would leave the key to the waiter's re-check, a
					// second later
					assertThat(client.sync().exists("lock:order")).as("granted to the waiter by the force release")
						.isOne();
				}
				LockLease taken = acquired.get(10, TimeUnit.SECONDS);
				assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
				taken.release();
			});
		}
	}

	@Test
	void forceReleaseIsLoggedAndAuditedNamingTheLockItsTokenAndTheCaller(CapturedOutput output) {
		try (TestLockRegistry holder = instance()) {
			LockLease held = holder.registry().acquire("order", Duration.ZERO);
			this.contextRunner.withPropertyValues(ENABLED).run((context) -> {
				endpoint(context).forceRelease(new String[] { "order" }, ALICE);
				assertThat(output).contains("WARN",
						"Lock 'order' was force-released (fencing token " + held.fencingToken() + ") by 'alice'");
				List<AuditEvent> events = context.getBean(AuditEventRepository.class)
					.find(null, null, ForceReleaseDistLockEndpoint.AUDIT_TYPE);
				assertThat(events).singleElement().satisfies((event) -> {
					assertThat(event.getPrincipal()).isEqualTo("alice");
					assertThat(event.getData())
						.isEqualTo(Map.of("name", "order", "released", true, "fencingToken", held.fencingToken()));
				});
			});
		}
	}

	@Test
	void failedForceReleaseIsLoggedAndAuditedSinceItMayHaveReleasedTheLock(CapturedOutput output) {
		this.contextRunner.withPropertyValues(ENABLED, "spring.data.redis.timeout=500ms").run((context) -> {
			ForceReleaseDistLockEndpoint endpoint = endpoint(context);
			redis.server().pause();
			try {
				assertThatExceptionOfType(DistributedLockException.class)
					.isThrownBy(() -> endpoint.forceRelease(new String[] { "order" }, ALICE));
			}
			finally {
				redis.server().resume();
			}
			assertThat(output).contains("WARN",
					"Force release of lock 'order' by 'alice' failed, and may have released it");
			assertThat(context.getBean(AuditEventRepository.class).find(null, null, null)).singleElement()
				.satisfies((event) -> {
					assertThat(event.getPrincipal()).isEqualTo("alice");
					assertThat(event.getData()).containsEntry("name", "order").containsKey("error");
				});
		});
	}

	@Test
	void forceReleaseOfAFreeLockReleasesNothingAndNamesAnAnonymousCaller() {
		this.contextRunner.withPropertyValues(ENABLED).run((context) -> {
			assertThat(endpoint(context).forceRelease(new String[] { "order" }, SecurityContext.NONE))
				.isEqualTo(new ForceReleaseDescriptor("order", false, null));
			assertThat(context.getBean(AuditEventRepository.class).find(null, null, null))
				.extracting(AuditEvent::getPrincipal, AuditEvent::getType)
				.containsExactly(tuple("anonymous", ForceReleaseDistLockEndpoint.AUDIT_TYPE));
		});
	}

	@Test
	void forceReleaseFreesALockKeptForItsMinimumHoldTimeAfterItsRelease() {
		try (TestLockRegistry holder = instance(); TestLockRegistry other = instance()) {
			holder.registry()
				.tryAcquire("order", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(20)))
				.orElseThrow()
				.release();
			assertThat(other.registry().isLocked("order")).isTrue();
			this.contextRunner.withPropertyValues(ENABLED)
				.run((context) -> assertThat(endpoint(context).forceRelease(new String[] { "order" }, ALICE).released())
					.isTrue());
			assertThat(other.registry().tryAcquire("order", Duration.ZERO)).isPresent();
		}
	}

	@Test
	void writeOperationReleasesTheLockNamedByTheRestOfThePath() {
		try (TestLockRegistry holder = instance()) {
			LockLease held = holder.registry().acquire("tenant/acme", Duration.ZERO);
			this.contextRunner.withPropertyValues(ENABLED).run((context) -> {
				WebOperation write = webOperations(context).stream()
					.filter((operation) -> operation.getType() == OperationType.WRITE)
					.findFirst()
					.orElseThrow();
				assertThat(write.getRequestPredicate().getHttpMethod()).isEqualTo(WebEndpointHttpMethod.POST);
				assertThat(write.getRequestPredicate().getPath()).isEqualTo("distlock/{*name}");
				Object released = write
					.invoke(new InvocationContext(ALICE, Map.of("name", new String[] { "tenant", "acme" })));
				assertThat(released).isEqualTo(new ForceReleaseDescriptor("tenant/acme", true, held.fencingToken()));
			});
		}
	}

	@Test
	void forceReleaseIsOffByDefault() {
		try (TestLockRegistry holder = instance()) {
			holder.registry().acquire("order", Duration.ZERO);
			this.contextRunner.run((context) -> {
				assertThat(context).hasSingleBean(DistLockEndpoint.class)
					.doesNotHaveBean(ForceReleaseDistLockEndpoint.class);
				assertThat(webOperations(context)).extracting(WebOperation::getType).containsOnly(OperationType.READ);
			});
			assertThat(holder.registry().isLocked("order")).isTrue();
		}
	}

	private static TestLockRegistry instance() {
		return TestLockRegistry.create(redis.server().uri(), LEASE);
	}

	private static ForceReleaseDistLockEndpoint endpoint(ApplicationContext context) {
		return context.getBean(ForceReleaseDistLockEndpoint.class);
	}

	/**
	 * Return the operations of the {@code distlock} endpoint as Actuator's web layer
	 * discovers them, mapped to HTTP.
	 */
	private static List<WebOperation> webOperations(ApplicationContext context) {
		WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context,
				new ConversionServiceParameterValueMapper(), EndpointMediaTypes.DEFAULT, List.of(), List.of(),
				List.of(), List.of(), List.of());
		return discoverer.getEndpoints()
			.stream()
			.filter((endpoint) -> endpoint.getEndpointId().toString().equals("distlock"))
			.map(ExposableWebEndpoint::getOperations)
			.findFirst()
			.map(List::copyOf)
			.orElseThrow();
	}

	/**
	 * Stores audit events as Actuator's audit auto-configuration does when an application
	 * has an {@code AuditEventRepository}.
	 */
	@Configuration(proxyBeanMethods = false)
	static class AuditEventsConfiguration {

		@Bean
		InMemoryAuditEventRepository auditEventRepository() {
			return new InMemoryAuditEventRepository();
		}

		@Bean
		AuditListener auditListener(InMemoryAuditEventRepository repository) {
			return new AuditListener(repository);
		}

	}

}
