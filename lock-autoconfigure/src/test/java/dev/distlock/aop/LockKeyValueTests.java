package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import dev.distlock.DistributedLock;
import dev.distlock.LockFailureAction;
import dev.distlock.LockKeyException;
import dev.distlock.LockLease;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How the values of {@link DistributedLock} keys become lock names: wrapped values are
 * the lock of what they wrap, and distinct values never share a lock.
 */
@Timeout(60)
class LockKeyValueTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s", "distlock.lease-time=3s")
		.withUserConfiguration(ServicesConfiguration.class);

	@Test
	void optionalKeyIsTheSameLockAsTheValueItHolds() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThat(service.byOptional(Optional.of("x"))).isEqualTo("lock:item:x");
			assertThat(service.byText("x")).isEqualTo("lock:item:x");
			assertThat(service.byOptionals(List.of(Optional.of("y"), Optional.of("x")))).isEqualTo("lock:item:y");
			try (TestLockRegistry rival = rival(); LockLease held = rival.registry().acquire("item:x", Duration.ZERO)) {
				assertThat(service.skippingByOptional(Optional.of("x"))).as("call while 'x' is held elsewhere")
					.isNull();
			}
			assertThat(redisKeys("lock:item:*")).isEmpty();
		});
	}

	@Test
	void emptyOptionalKeyFailsTheCallWithoutRunningIt() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byOptional(Optional.empty()))
				.withMessage("Lock key '#id' of KeyedService.byOptional(Optional) evaluated to an empty Optional;"
						+ " the method was not run");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byOptionals(List.of(Optional.of("x"), Optional.empty())))
				.withMessage("Lock key '#ids' of KeyedService.byOptionals(List) evaluated to an empty Optional"
						+ " for one of its elements; the method was not run");
			assertThat(service.calls()).hasValue(0);
			assertThat(redisKeys("lock:item:*")).isEmpty();
		});
	}

	@Test
	void unpairedSurrogatesAndAQuestionMarkAreThreeDistinctLocks() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			String high = service.byText("\uD800");
			String low = service.byText("\uDFFF");
			String questionMark = service.byText("?");
			assertThat(questionMark).isEqualTo("lock:item:%3F");
			assertThat(List.of(high, low, questionMark)).doesNotHaveDuplicates();
			try (TestLockRegistry rival = rival();
					LockLease held = rival.registry().acquire("item:%3F", Duration.ZERO)) {
				assertThat(service.byText("\uD800")).isEqualTo(high);
				assertThat(service.byText("\uDFFF")).isEqualTo(low);
			}
			assertThat(redisKeys("lock:item:*")).isEmpty();
		});
	}

	@Test
	void keyWithMoreValuesThanACallMayLockFailsTheCallBeforeLockingAny() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			List<Integer> tooMany = IntStream.rangeClosed(1, 101).boxed().toList();
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byIds(tooMany, () -> redisKeys("lock:batch:*")))
				.withMessage("Lock key '#ids' of KeyedService.byIds(List, Supplier) evaluated to 101 keys, more than"
						+ " distlock.max-keys-per-call (100); the method was not run");
			assertThat(service.calls()).hasValue(0);
			assertThat(redisKeys("*batch*")).as("lock keys and fencing counters").isEmpty();
			assertThat(service.byIds(tooMany.subList(0, 100), () -> redisKeys("lock:batch:*"))).hasSize(100);
			assertThat(redisKeys("lock:batch:*")).isEmpty();
		});
	}

	@Test
	void mostKeysPerCallIsConfigurable() {
		this.contextRunner.withPropertyValues("distlock.max-keys-per-call=2").run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThat(service.byIds(List.of(1, 2), () -> redisKeys("lock:batch:*"))).hasSize(2);
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byIds(List.of(1, 2, 3), () -> redisKeys("lock:batch:*")))
				.withMessageContaining("evaluated to 3 keys, more than distlock.max-keys-per-call (2)");
		});
	}

	private static List<String> redisKeys(String pattern) {
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			return client.sync().keys(pattern);
		}
	}

	private static TestLockRegistry rival() {
		return TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30));
	}

	@Configuration(proxyBeanMethods = false)
	static class ServicesConfiguration {

		@Bean
		KeyedService keyedService() {
			return new KeyedService();
		}

	}

	static class KeyedService {

		private final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(name = "item", key = "#id")
		public String byOptional(Optional<String> id) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "item", key = "#id", waitTime = "0s", onFailure = LockFailureAction.SKIP)
		public String skippingByOptional(Optional<String> id) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "item", key = "#ids")
		public String byOptionals(List<Optional<String>> ids) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "item", key = "#id", waitTime = "0s")
		public String byText(String id) {
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "batch", key = "#ids")
		public List<String> byIds(List<Integer> ids, Supplier<List<String>> whileLocked) {
			this.calls.incrementAndGet();
			return whileLocked.get();
		}

		AtomicInteger calls() {
			return this.calls;
		}

	}

}
