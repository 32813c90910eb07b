package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.util.AopTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistributedLock} methods called through a proxy whose method is not the
 * annotated one: an interface method with other parameter names, or a generic interface
 * method with an erased return type.
 */
@Timeout(60)
class InterceptedMethodResolutionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s", "distlock.lease-time=3s")
		.withUserConfiguration(ServicesConfiguration.class);

	@Test
	void keyNamingTheClassMethodsParameterWorksThroughAnInterfaceProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false").run((context) -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(AopUtils.isJdkDynamicProxy(payments)).isTrue();
			assertThat(payments.pay(42)).isEqualTo("lock:payment:42");
			assertThat(redisKeys("lock:payment:*")).isEmpty();
		});
	}

	@Test
	void keyNamingTheClassMethodsParameterWorksThroughAClassProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=true").run((context) -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(AopUtils.isCglibProxy(payments)).isTrue();
			assertThat(payments.pay(42)).isEqualTo("lock:payment:42");
			assertThat(redisKeys("lock:payment:*")).isEmpty();
		});
	}

	@Test
	void futureFromAGenericInterfaceMethodHoldsTheLockUntilItCompletesThroughAnInterfaceProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false").run((context) -> {
			@SuppressWarnings("unchecked")
			Job<CompletableFuture<String>> job = context.getBean(Job.class);
			assertThat(AopUtils.isJdkDynamicProxy(job)).isTrue();
			assertHeldUntilTheFutureCompletes(AopTestUtils.getTargetObject(job), job);
		});
	}

	@Test
	void futureFromAGenericInterfaceMethodHoldsTheLockUntilItCompletesThroughAClassProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=true").run((context) -> {
			@SuppressWarnings("unchecked")
			Job<CompletableFuture<String>> job = context.getBean(Job.class);
			assertThat(AopUtils.isCglibProxy(job)).isTrue();
			assertHeldUntilTheFutureCompletes(AopTestUtils.getTargetObject(job), job);
		});
	}

	private static void assertHeldUntilTheFutureCompletes(FutureJob target, Job<CompletableFuture<String>> job) {
		CompletableFuture<String> result = job.run("j-1");
		assertThat(result).isNotDone();
		assertThat(redisKeys("lock:job:j-1")).as("lock key while the future is pending").hasSize(1);
		target.pending("j-1").complete("done");
		assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		assertThat(redisKeys("lock:job:j-1")).as("lock key after the future completed").isEmpty();
		assertThat(target.runs()).hasValue(1);
	}

	private static List<String> redisKeys(String pattern) {
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			return client.sync().keys(pattern);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ServicesConfiguration {

		@Bean
		DefaultPayments payments() {
			return new DefaultPayments();
		}

		@Bean
		FutureJob futureJob() {
			return new FutureJob();
		}

	}

	interface Payments {

		String pay(long id);

	}

	static class DefaultPayments implements Payments {

		@Override
		@DistributedLock(name = "payment", key = "#orderId")
		public String pay(long orderId) {
			return DistributedLockInterceptorTests.currentKey();
		}

	}

	interface Job<T> {

		T run(String id);

	}

	static class FutureJob implements Job<CompletableFuture<String>> {

		private final ConcurrentHashMap<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();

		private final AtomicInteger runs = new AtomicInteger();

		@Override
		@DistributedLock(name = "job", key = "#id")
		public CompletableFuture<String> run(String id) {
			this.runs.incrementAndGet();
			return pending(id);
		}

		CompletableFuture<String> pending(String id) {
			return this.pending.computeIfAbsent(id, (key) -> new CompletableFuture<>());
		}

		AtomicInteger runs() {
			return this.runs;
		}

	}

}
