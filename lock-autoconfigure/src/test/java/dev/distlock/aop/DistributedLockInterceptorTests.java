package dev.distlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.FencedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import dev.distlock.LockKeyException;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of {@link DistributedLock} methods in a Spring context against a real
 * {@code redis-server}.
 * <p>
 * The second layer of the interception tests, auto-configured against real Redis; the
 * first, {@link InterceptionRulesTests}, checks the rules on proxies over an in-memory
 * registry.
 */
@Timeout(60)
class DistributedLockInterceptorTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s", "distlock.lease-time=3s")
		.withUserConfiguration(ServicesConfiguration.class);

	@Test
	void methodRunsHoldingTheLockOfItsNameAndKeyAndSeesItsLease() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			LockLease lease = orders.pay(42);
			assertThat(lease.name()).isEqualTo("order:42");
			assertThat(lease.fencingToken()).isPositive();
			assertThat(orders.keysSeenWhileRunning()).containsExactly("lock:order:42");
			assertThat(redisKeys("lock:order:*")).isEmpty();
			assertThat(LockContext.currentLease()).isEmpty();
		});
	}

	@Test
	void lockHeldElsewhereFailsTheCallAfterItsWaitTimeWithoutRunningIt() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			try (TestLockRegistry rival = rival()) {
				rival.registry().acquire("order:7", Duration.ZERO);
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> orders.pay(7))
					.withMessage("Lock 'order:7' of OrderService.pay(long) was not acquired within PT0.2S");
				assertThat(orders.calls()).hasValue(0);
			}
		});
	}

	@Test
	void skippedCallsReturnEmptyResultsWithoutRunning() {
		this.contextRunner.run((context) -> {
			SkippingService skipping = context.getBean(SkippingService.class);
			try (TestLockRegistry rival = rival()) {
				rival.registry().acquire("nightly", Duration.ZERO);
				assertThat(skipping.optional()).isEmpty();
				assertThat(skipping.boxed()).isNull();
				assertThat(skipping.future()).isCompletedWithValue(null);
				assertThat(skipping.mono().block(Duration.ofSeconds(5))).isNull();
				assertThat(skipping.flux().collectList().block(Duration.ofSeconds(5))).isEmpty();
				skipping.run();
				assertThat(skipping.calls()).hasValue(0);
			}
		});
	}

	@Test
	void defaultNameIsClassAndMethodAndIsTheSameLockAsTheRegistrys() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			LockRegistry registry = context.getBean(LockRegistry.class);
			assertThat(orders.reenterThroughRegistry(registry)).isTrue();
			assertThat(redisKeys("lock:*")).isEmpty();
		});
	}

	@Test
	void nestedCallWithTheSameLockReentersWithoutARoundTrip() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.pay(1);
			try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
				CommandStats stats = new CommandStats(client.sync());
				stats.reset();
				long[] tokens = orders.outer(5);
				assertThat(tokens[0]).isEqualTo(tokens[1]);
				assertThat(stats.calls().get("evalsha")).isEqualTo(2L);
			}
		});
	}

	@Test
	void metaAnnotationPassesItsAliasedKey() {
		this.contextRunner.run((context) -> {
			PaymentService payments = context.getBean(PaymentService.class);
			assertThat(payments.refund("r-1").name()).isEqualTo("payment:r-1");
		});
	}

	@Test
	void keysAreEncodedSoThatSeparatorsAndBracesCannotCollide() {
		this.contextRunner.run((context) -> {
			PaymentService payments = context.getBean(PaymentService.class);
			assertThat(payments.refund("a:b").name()).isEqualTo("payment:a%3Ab");
			assertThat(payments.refund("{x}").name()).isEqualTo("payment:%7Bx%7D");
		});
	}

	@Test
	void nullOrBlankKeyFailsTheCallWithoutRunningIt() {
		this.contextRunner.run((context) -> {
			PaymentService payments = context.getBean(PaymentService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> payments.refund(null))
				.withMessage("Lock key '#refundId' of PaymentService.refund(String) evaluated to null;"
						+ " the method was not run");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> payments.refund("  "))
				.withMessageContaining("evaluated to a blank value");
			assertThat(payments.calls()).hasValue(0);
		});
	}

	@Test
	void transfersInOppositeDirectionsNeverDeadlock() {
		this.contextRunner.run((context) -> {
			AccountService accounts = context.getBean(AccountService.class);
			ExecutorService pool = Executors.newFixedThreadPool(2);
			try {
				List<CompletableFuture<Void>> runs = new ArrayList<>();
				for (int i = 0; i < 2; i++) {
					boolean forward = (i == 0);
					runs.add(CompletableFuture.runAsync(() -> {
						for (int n = 0; n < 30; n++) {
							if (forward) {
								accounts.transfer("alice", "bob");
							}
							else {
								accounts.transfer("bob", "alice");
							}
						}
					}, pool));
				}
				CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
				assertThat(accounts.transfers()).hasValue(60);
				assertThat(accounts.lockNames())
					.allSatisfy((names) -> assertThat(names).containsExactly("account:bob"));
			}
			finally {
				pool.shutdownNow();
			}
		});
	}

	@Test
	void everyLockOfACallWaitsOnlyForWhatIsLeftOfItsWaitTime() {
		this.contextRunner.run((context) -> {
			AccountService accounts = context.getBean(AccountService.class);
			ScheduledExecutorService releaser = Executors.newSingleThreadScheduledExecutor();
			try (TestLockRegistry rival = rival()) {
				LockLease first = rival.registry().acquire("audit:a", Duration.ZERO);
				LockLease second = rival.registry().acquire("audit:b", Duration.ZERO);
				rival.registry().acquire("audit:c", Duration.ZERO);
				releaser.schedule(first::release, 750, TimeUnit.MILLISECONDS);
				releaser.schedule(second::release, 1500, TimeUnit.MILLISECONDS);
				long start = System.nanoTime();
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> accounts.audit(List.of("c", "a", "b")))
					.withMessage("Lock 'audit:a, audit:b, audit:c' of AccountService.audit(List) was not acquired"
							+ " within PT1S");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the wait for all three locks")
					.isGreaterThanOrEqualTo(Duration.ofMillis(900))
					.isLessThan(Duration.ofSeconds(2));
				assertThat(accounts.audits()).hasValue(0);
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(redisKeys("lock:audit:*")).as("locks still held by the rival")
						.containsExactly("lock:audit:c"));
			}
			finally {
				releaser.shutdownNow();
			}
		});
	}

	@Test
	void futureResultHoldsTheLockUntilItCompletes() {
		this.contextRunner.run((context) -> {
			AsyncService async = context.getBean(AsyncService.class);
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<String> result = async.later(pending);
			assertThat(redisKeys("lock:async")).hasSize(1);
			pending.complete("done");
			assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
			assertThat(redisKeys("lock:async")).isEmpty();
		});
	}

	@Test
	void cancellingTheFutureReleasesTheLock() {
		this.contextRunner.run((context) -> {
			AsyncService async = context.getBean(AsyncService.class);
			CompletableFuture<String> result = async.later(new CompletableFuture<>());
			assertThat(redisKeys("lock:async")).hasSize(1);
			result.cancel(true);
			await().atMost(Duration.ofSeconds(5)).until(() -> redisKeys("lock:async").isEmpty());
		});
	}

	@Test
	void monoHoldsTheLockFromSubscriptionUntilItCompletes() {
		this.contextRunner.run((context) -> {
			AsyncService async = context.getBean(AsyncService.class);
			Mono<Integer> mono = async.mono();
			assertThat(redisKeys("lock:reactive")).isEmpty();
			assertThat(mono.block(Duration.ofSeconds(5))).isEqualTo(1);
			assertThat(async.keysSeenWhileRunning()).containsExactly("lock:reactive");
			assertThat(redisKeys("lock:reactive")).isEmpty();
		});
	}

	@Test
	void methodThatOutlivesItsFixedLeaseThrowsLockLostAndPublishesTheEvent() {
		this.contextRunner.run((context) -> {
			SlowService slow = context.getBean(SlowService.class);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(slow::outliveLease)
				.withMessageContaining("Lock 'SlowService.outliveLease' was lost");
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(context.getBean(LostEvents.class).events).singleElement()
					.satisfies((event) -> assertThat(event.name()).isEqualTo("SlowService.outliveLease")));
		});
	}

	@Test
	void lostLockIsLoggedAndTheResultReturnedWhenOnLostIsLog() {
		this.contextRunner.withPropertyValues("distlock.on-lost=log").run((context) -> {
			SlowService slow = context.getBean(SlowService.class);
			assertThat(slow.outliveLease()).isEqualTo("finished");
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(context.getBean(LostEvents.class).events).hasSize(1));
		});
	}

	@Test
	void minHoldTimeKeepsTheLockAfterTheMethodReturns() {
		this.contextRunner.run((context) -> {
			SkippingService skipping = context.getBean(SkippingService.class);
			skipping.held();
			assertThat(redisKeys("lock:held")).hasSize(1);
			skipping.held();
			assertThat(skipping.calls()).hasValue(1);
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

	static String currentKey() {
		return "lock:" + LockContext.currentLease().orElseThrow().name();
	}

	@Configuration(proxyBeanMethods = false)
	static class ServicesConfiguration {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

		@Bean
		SkippingService skippingService() {
			return new SkippingService();
		}

		@Bean
		PaymentService paymentService() {
			return new PaymentService();
		}

		@Bean
		AccountService accountService() {
			return new AccountService();
		}

		@Bean
		AsyncService asyncService() {
			return new AsyncService();
		}

		@Bean
		SlowService slowService() {
			return new SlowService();
		}

		@Bean
		LostEvents lostEvents() {
			return new LostEvents();
		}

	}

	static class OrderService {

		final AtomicInteger calls = new AtomicInteger();

		final List<String> keysSeenWhileRunning = new CopyOnWriteArrayList<>();

		private OrderService self;

		public AtomicInteger calls() {
			return this.calls;
		}

		public List<String> keysSeenWhileRunning() {
			return this.keysSeenWhileRunning;
		}

		@DistributedLock(name = "order", key = "#orderId", waitTime = "200ms")
		public LockLease pay(long orderId) {
			this.calls.incrementAndGet();
			this.keysSeenWhileRunning.add(currentKey());
			return LockContext.currentLease().orElseThrow();
		}

		@DistributedLock
		public boolean reenterThroughRegistry(LockRegistry registry) {
			FencedLock lock = registry.obtain("OrderService.reenterThroughRegistry");
			boolean reentered = lock.tryLock();
			lock.unlock();
			return reentered && lock.isHeldByCurrentThread();
		}

		@DistributedLock(name = "nested", key = "#id")
		public long[] outer(long id) {
			long outerToken = LockContext.currentLease().orElseThrow().fencingToken();
			return new long[] { outerToken, this.self.inner(id) };
		}

		@DistributedLock(name = "nested", key = "#id")
		public long inner(long id) {
			return LockContext.currentLease().orElseThrow().fencingToken();
		}

		@org.springframework.beans.factory.annotation.Autowired
		void setSelf(@org.springframework.context.annotation.Lazy OrderService self) {
			this.self = self;
		}

	}

	static class SkippingService {

		final AtomicInteger calls = new AtomicInteger();

		public AtomicInteger calls() {
			return this.calls;
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public Optional<String> optional() {
			this.calls.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public Integer boxed() {
			this.calls.incrementAndGet();
			return 1;
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public CompletableFuture<String> future() {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public Mono<String> mono() {
			return Mono.fromCallable(() -> {
				this.calls.incrementAndGet();
				return "ran";
			});
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public Flux<String> flux() {
			return Flux.defer(() -> {
				this.calls.incrementAndGet();
				return Flux.just("ran");
			});
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public void run() {
			this.calls.incrementAndGet();
		}

		@DistributedLock(name = "held", minHoldTime = "10s", onFailure = LockFailureAction.SKIP)
		public void held() {
			this.calls.incrementAndGet();
		}

	}

	@java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
	@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
	@DistributedLock(name = "payment", waitTime = "1s")
	@interface PaymentLock {

		@org.springframework.core.annotation.AliasFor(annotation = DistributedLock.class, attribute = "key")
		String key();

	}

	static class PaymentService {

		final AtomicInteger calls = new AtomicInteger();

		public AtomicInteger calls() {
			return this.calls;
		}

		@PaymentLock(key = "#refundId")
		public LockLease refund(String refundId) {
			this.calls.incrementAndGet();
			return LockContext.currentLease().orElseThrow();
		}

	}

	static class AccountService {

		final AtomicInteger transfers = new AtomicInteger();

		final List<List<String>> lockNames = new CopyOnWriteArrayList<>();

		final AtomicInteger audits = new AtomicInteger();

		public AtomicInteger transfers() {
			return this.transfers;
		}

		public AtomicInteger audits() {
			return this.audits;
		}

		public List<List<String>> lockNames() {
			return this.lockNames;
		}

		@DistributedLock(name = "account", key = "{#from, #to}", waitTime = "20s")
		public void transfer(String from, String to) {
			this.transfers.incrementAndGet();
			this.lockNames.add(List.of(LockContext.currentLease().orElseThrow().name()));
		}

		@DistributedLock(name = "audit", key = "#accounts", waitTime = "1s")
		public void audit(List<String> accounts) {
			this.audits.incrementAndGet();
		}

	}

	static class AsyncService {

		final List<String> keysSeenWhileRunning = new CopyOnWriteArrayList<>();

		public List<String> keysSeenWhileRunning() {
			return this.keysSeenWhileRunning;
		}

		@DistributedLock(name = "async")
		public CompletableFuture<String> later(CompletableFuture<String> pending) {
			return pending;
		}

		@DistributedLock(name = "reactive")
		public Mono<Integer> mono() {
			return Mono.fromCallable(() -> {
				try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
					this.keysSeenWhileRunning.addAll(client.sync().keys("lock:reactive"));
				}
				return 1;
			});
		}

	}

	static class SlowService {

		@DistributedLock(leaseTime = "100ms")
		public String outliveLease() throws InterruptedException {
			Thread.sleep(300);
			return "finished";
		}

	}

	static class LostEvents {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void onLost(LockLostEvent event) {
			this.events.add(event);
		}

	}

}
