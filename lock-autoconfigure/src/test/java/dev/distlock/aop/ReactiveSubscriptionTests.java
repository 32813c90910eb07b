package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each subscription to a {@code Mono} or {@code Flux} result of a {@link DistributedLock}
 * method holds its own locks, released however the subscription ends, and runs the rest
 * of the method's advice chain; its operators see its lease in {@link LockContext} on any
 * thread through the context-propagation library.
 */
@Timeout(120)
class ReactiveSubscriptionTests {

	/** A lease that the watchdog renews in time however busy the machine is. */
	private static final String LONG_LEASE = "distlock.lease-time=30s";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s", "distlock.lease-time=3s")
		.withUserConfiguration(ReactiveConfiguration.class);

	@Test
	void subscriptionsCancelledAtAnyMomentLeaveNoLockBehind() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			ThreadLocalRandom random = ThreadLocalRandom.current();
			for (int id = 0; id < 3000; id++) {
				Flux<Integer> result = (id % 2 == 0) ? service.mono(id).flux() : service.flux(id);
				Disposable subscription = result.subscribe();
				LockSupport.parkNanos(random.nextLong(600_000));
				subscription.dispose();
			}
			RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				assertThat(registry.heldLocks()).isEmpty();
				assertThat(lockKeys()).isEmpty();
			});
		});
	}

	@Test
	void everyResubscriptionRunsTheAdviceAfterTheLockAndTheMethod() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			InnerAdvice inner = (InnerAdvice) context.getBean("innerAdvisor", DefaultPointcutAdvisor.class).getAdvice();
			assertThat(service.counted().repeat(2).collectList().block(Duration.ofSeconds(10))).containsExactly(1, 2,
					3);
			assertThat(inner.runs).hasValue(3);
			assertThat(lockKeys()).isEmpty();
		});
	}

	@Test
	void methodBodySeesTheLeaseOfItsSubscriptionInLockContext() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			assertThat(service.currentLeaseName("a").block(Duration.ofSeconds(10))).isEqualTo("lease:a");
			assertThat(service.currentLeaseNames("b").collectList().block(Duration.ofSeconds(10)))
				.containsExactly("lease:b");
			assertThat(LockContext.currentLease()).isEmpty();
		});
	}

	@Test
	void operatorsOnAnotherSchedulerSeeTheLeaseOnceAutomaticContextPropagationIsOn() {
		withAutomaticContextPropagation((service) -> {
			assertThat(service.leaseOnAnotherScheduler("c").block(Duration.ofSeconds(10))).isEqualTo("lease:c");
			assertThat(service.leasesOnAnotherScheduler("d").collectList().block(Duration.ofSeconds(10)))
				.containsExactly("lease:d", "lease:d");
		});
	}

	@Test
	void handleOnAnotherSchedulerSeesTheLeaseWithoutAutomaticContextPropagation() {
		this.contextRunner.withPropertyValues(LONG_LEASE).run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			assertThat(service.leaseInHandle("e").block(Duration.ofSeconds(10))).isEqualTo("lease:e");
			assertThat(service.leaseOnAnotherScheduler("f").block(Duration.ofSeconds(10))).isEqualTo("none");
		});
	}

	@Test
	void readmeExampleFencesEntriesOnAnotherSchedulerWithTheLeaseOfTheirSubscription() {
		this.contextRunner.withPropertyValues(LONG_LEASE).run((context) -> {
			List<Entry> exported = context.getBean(ExportService.class)
				.export("books")
				.collectList()
				.block(Duration.ofSeconds(10));
			assertThat(exported).hasSize(3).allSatisfy((entry) -> assertThat(entry.fencingToken()).isPositive());
			assertThat(exported).extracting(Entry::fencingToken).containsOnly(exported.get(0).fencingToken());
		});
	}

	@Test
	void pipelineBuiltInASynchronousMethodCapturesItsLeaseForOtherSchedulers() {
		withAutomaticContextPropagation(
				(service) -> assertThat(service.leaseCapturedForAnotherScheduler("g")).isEqualTo("captured:g"));
	}

	/**
	 * Run a test on the service with Reactor's automatic context propagation on, a global
	 * hook that it turns off again.
	 */
	private void withAutomaticContextPropagation(Consumer<ReactiveService> test) {
		this.contextRunner.withPropertyValues(LONG_LEASE).run((context) -> {
			Hooks.enableAutomaticContextPropagation();
			try {
				test.accept(context.getBean(ReactiveService.class));
			}
			finally {
				Hooks.disableAutomaticContextPropagation();
			}
		});
	}

	private static List<String> lockKeys() {
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			return client.sync().keys("lock:*");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ReactiveConfiguration {

		@Bean
		ExportService exportService() {
			return new ExportService(new Entries());
		}

		@Bean
		ReactiveService reactiveService() {
			return new ReactiveService();
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DefaultPointcutAdvisor innerAdvisor() {
			DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
					new AnnotationMatchingPointcut(null, DistributedLock.class, true), new InnerAdvice());
			advisor.setOrder(Ordered.LOWEST_PRECEDENCE);
			return advisor;
		}

	}

	/**
	 * Advice ordered after the locking one, counting its runs.
	 */
	static class InnerAdvice implements MethodInterceptor {

		final AtomicInteger runs = new AtomicInteger();

		@Override
		public Object invoke(MethodInvocation invocation) throws Throwable {
			this.runs.incrementAndGet();
			return invocation.proceed();
		}

	}

	static class ReactiveService {

		private final AtomicInteger bodies = new AtomicInteger();

		@DistributedLock(name = "mono", key = "#id")
		public Mono<Integer> mono(int id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "flux", key = "#id")
		public Flux<Integer> flux(int id) {
			return Flux.range(id, 3);
		}

		@DistributedLock(name = "lease", key = "#id")
		public Mono<String> currentLeaseName(String id) {
			return Mono.just(LockContext.currentLease().map(LockLease::name).orElse("none"));
		}

		@DistributedLock(name = "lease", key = "#id")
		public Flux<String> currentLeaseNames(String id) {
			return Flux.just(LockContext.currentLease().map(LockLease::name).orElse("none"));
		}

		@DistributedLock(name = "lease", key = "#id")
		public Mono<String> leaseOnAnotherScheduler(String id) {
			return Mono.just(id).publishOn(Schedulers.parallel()).map((value) -> currentLeaseName());
		}

		@DistributedLock(name = "lease", key = "#id")
		public Flux<String> leasesOnAnotherScheduler(String id) {
			return Flux.just(1, 2).publishOn(Schedulers.parallel()).map((value) -> currentLeaseName());
		}

		@DistributedLock(name = "lease", key = "#id")
		public Mono<String> leaseInHandle(String id) {
			return Mono.just(id)
				.publishOn(Schedulers.parallel())
				.handle((value, sink) -> sink.next(currentLeaseName()));
		}

		@DistributedLock(name = "captured", key = "#id")
		public String leaseCapturedForAnotherScheduler(String id) {
			return Mono.just(id)
				.publishOn(Schedulers.parallel())
				.map((value) -> currentLeaseName())
				.contextCapture()
				.block(Duration.ofSeconds(10));
		}

		private static String currentLeaseName() {
			return LockContext.currentLease().map(LockLease::name).orElse("none");
		}

		@DistributedLock(name = "counted")
		public Mono<Integer> counted() {
			return Mono.just(this.bodies.incrementAndGet());
		}

	}

	/**
	 * The example of the user guide's "{@code LockContext} in reactive pipelines", as it
	 * is written there.
	 */
	static class ExportService {

		private final Entries entries;

		ExportService(Entries entries) {
			this.entries = entries;
		}

		// tag::reactive-export[]
		@DistributedLock(name = "export", key = "#id")
		public Flux<Entry> export(String id) {
			return this.entries.findAll(id)
				.publishOn(Schedulers.parallel())
				.handle((entry, sink) -> sink
					.next(entry.fenced(LockContext.currentLease().orElseThrow().fencingToken())));
		}
		// end::reactive-export[]

	}

	/**
	 * The entries of an export, found on a thread of their own.
	 */
	static class Entries {

		Flux<Entry> findAll(String id) {
			return Flux.range(1, 3).map((number) -> new Entry(id + "-" + number, 0)).subscribeOn(Schedulers.single());
		}

	}

	/**
	 * An entry, and the fencing token it is written with.
	 *
	 * @param id the entry's id
	 * @param fencingToken the fencing token, 0 until fenced
	 */
	record Entry(String id, long fencingToken) {

		Entry fenced(long token) {
			return new Entry(this.id, token);
		}

	}

}
