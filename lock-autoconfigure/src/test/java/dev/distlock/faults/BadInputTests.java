package dev.distlock.faults;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import dev.distlock.DistributedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockKeyException;
import dev.distlock.LockLease;
import dev.distlock.aop.InvalidLockAnnotationException;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.LockKeys;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Bad input through {@link DistributedLock}, each case an input and the exact message a
 * user sees: lock keys that are null, blank, huge, unicode or full of separators and
 * braces (which must neither collide with other locks nor split a lock's keys across
 * Cluster slots), and durations that are zero, negative, absurdly large, unparsable or
 * unresolvable.
 */
@Timeout(60)
class BadInputTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s");

	static Stream<Arguments> keysWithNothingToLock() {
		String blank = "Lock key '#key' of KeyedService.lock(String) evaluated to a blank value; the method was not run";
		return Stream.of(
				arguments("null", null,
						"Lock key '#key' of KeyedService.lock(String) evaluated to null; the method was not run"),
				arguments("empty", "", blank), arguments("spaces", "   ", blank),
				arguments("tab and line feed", "\t\n", blank));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource
	void keysWithNothingToLock(String input, @Nullable String key, String message) {
		this.contextRunner.withUserConfiguration(KeyedServiceConfiguration.class).run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.lock(key)).withMessage(message);
			assertThat(service.calls()).isZero();
			assertThat(redisKeys(context, "lock:*")).isEmpty();
		});
	}

	static Stream<Arguments> keysThatLock() {
		String megabyte = "x".repeat(1024 * 1024);
		return Stream.of(arguments("digits", "42", "lock:order:42"),
				arguments("plain punctuation", "a-b_c.d", "lock:order:a-b_c.d"),
				arguments("separator", "a:b", "lock:order:a%3Ab"),
				arguments("escaped separator", "a%3Ab", "lock:order:a%253Ab"),
				arguments("hash tag", "{a}", "lock:order:%7Ba%7D"),
				arguments("lone closing brace", "}", "lock:order:%7D"),
				arguments("unicode", "zürich 東京", "lock:order:z%C3%BCrich%20%E6%9D%B1%E4%BA%AC"),
				arguments("1 MB", megabyte, "lock:order:" + "x".repeat(64) + "#" + sha256(megabyte)));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource
	void keysThatLock(String input, String key, String redisKey) {
		this.contextRunner.withUserConfiguration(KeyedServiceConfiguration.class).run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			LockedCall call = service.lock(key);
			assertThat(call.lockKey()).isEqualTo(redisKey);
			assertThat(call.lockKeyExisted()).as("lock key in Redis while the method ran").isTrue();
			String fenceKey = LockKeys.fenceKey(redisKey);
			assertThat(call.fencingCounter()).as("fencing key %s", fenceKey).matches("[1-9][0-9]*");
			assertThat(SlotHash.getSlot(fenceKey)).as("Cluster slot of the fencing key")
				.isEqualTo(SlotHash.getSlot(redisKey));
			assertThat(redisKey).hasSizeLessThanOrEqualTo("lock:order:".length() + 128 + 1);
			assertThat(redisKeys(context, "lock:*")).as("lock keys after the call").isEmpty();
		});
	}

	@Test
	void nameAndKeyPairsThatLookAlikeAreDistinctLocks() {
		this.contextRunner.withUserConfiguration(KeyedServiceConfiguration.class).run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			String[] inner = new String[1];
			// name "order" with key "a:b" and name "order:a" with key "b", held at once
			// by two threads
			service.lockWhile("a:b", () -> inner[0] = CompletableFuture.supplyAsync(() -> service.lockOrderA("b"))
				.get(10, TimeUnit.SECONDS));
			assertThat(inner[0]).isEqualTo("lock:order:a:b");
			assertThat(service.lastLockKey()).isEqualTo("lock:order:a%3Ab");
		});
	}

	@Test
	void hashTagInTheNameKeepsTheFencingCounterInTheLocksSlot() {
		this.contextRunner.withUserConfiguration(KeyedServiceConfiguration.class).run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			LockedCall call = service.lockTagged("7");
			assertThat(call.lockKey()).isEqualTo("lock:{orders}:7");
			assertThat(call.fencingCounter()).matches("[1-9][0-9]*");
			assertThat(SlotHash.getSlot("lock:{orders}:7!fence")).isEqualTo(SlotHash.getSlot("lock:{orders}:7"));
		});
	}

	@Test
	void keyValueFenceOfATaggedNameIsNotTheFencingCounterOfThatName() {
		this.contextRunner.withBean("billing", BillingService.class).run((context) -> {
			BillingService billing = context.getBean(BillingService.class);
			long first = billing.lockKeyed("fence", billing::lockFenced);
			assertThat(billing.lockKeyed("fence", billing::lockFenced)).isGreaterThan(first);
			assertThat(redisKeys(context, "*")).containsExactlyInAnyOrder("lock:{billing}!fence",
					"lock:{billing}:fence!fence");
		});
	}

	@Test
	void fencingCounterOfATaggedNameLeavesTheLockOfKeyValueFenceFree() {
		this.contextRunner.withBean("billing", BillingService.class).run((context) -> {
			BillingService billing = context.getBean(BillingService.class);
			long first = billing.lockFenced();
			assertThat(billing.lockKeyed("fence", billing::lockFenced)).isGreaterThan(first);
		});
	}

	@Test
	void nameWithAStrayClosingBraceFailsTheStartup() {
		this.contextRunner.withBean("strayBrace", StrayBraceService.class)
			.run((context) -> assertThat(startupFailure(context)).hasMessageContaining("attribute 'name'")
				.hasMessageContaining("Lock key 'lock:a}b' contains '}' outside a hash tag"));
	}

	static Stream<Arguments> durationsThatFailTheStartup() {
		return Stream.of(arguments("negative waitTime", NegativeWait.class,
				"@DistributedLock on NegativeWait.run() of bean 'service', attribute 'waitTime': '-1s' is negative"),
				arguments("negative leaseTime", NegativeLease.class,
						"@DistributedLock on NegativeLease.run() of bean 'service', attribute 'leaseTime': '-5ms' is negative"),
				arguments("zero leaseTime", ZeroLease.class,
						"@DistributedLock on ZeroLease.run() of bean 'service', attribute 'leaseTime': '0s' is zero"),
				arguments("zero minHoldTime", ZeroMinHold.class,
						"@DistributedLock on ZeroMinHold.run() of bean 'service', attribute 'minHoldTime': '0ms' is zero"),
				arguments("unparsable waitTime", UnparsableWait.class,
						"@DistributedLock on UnparsableWait.run() of bean 'service', attribute 'waitTime': 'five seconds'"
								+ " is not a duration: 'five seconds' is not a valid duration"),
				arguments("unresolvable waitTime", UnresolvableWait.class,
						"@DistributedLock on UnresolvableWait.run() of bean 'service', attribute 'waitTime': Could not"
								+ " resolve placeholder 'missing.wait' in value \"${missing.wait}\""));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource
	void durationsThatFailTheStartup(String input, Class<?> service, String message) {
		this.contextRunner.withBean("service", service)
			.run((context) -> assertThat(startupFailure(context)).hasMessage(message));
	}

	@Test
	void zeroWaitTimeTriesOnce() {
		this.contextRunner.withBean("service", ZeroWait.class).run((context) -> {
			ZeroWait service = context.getBean(ZeroWait.class);
			try (TestLockRegistry rival = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
				LockLease held = rival.registry().acquire("zero", Duration.ZERO);
				long startNanos = System.nanoTime();
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(service::run)
					.withMessage("Lock 'zero' of ZeroWait.run() was not acquired within PT0S");
				assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(Duration.ofSeconds(1));
				held.release();
			}
			assertThat(service.run()).isEqualTo("ran");
		});
	}

	@Test
	void absurdlyLargeDurationsAreAcceptedAndMeanWhatTheySay() {
		this.contextRunner.withBean("service", HundredThousandDays.class).run((context) -> {
			assertThat(context).hasNotFailed();
			HundredThousandDays service = context.getBean(HundredThousandDays.class);
			long ttl = service.lockedTtl();
			assertThat(ttl).as("PTTL of a fixed lease of 100000 days")
				.isGreaterThan(Duration.ofDays(100000).minusMinutes(1).toMillis());
			assertThat(redisKeys(context, "lock:*")).isEmpty();
		});
	}

	static Stream<Arguments> leaseTimesTheEngineCannotCount() {
		return Stream.of(arguments("under 1 ms", SubMillisecondLease.class, "'500us'"),
				arguments("too long for milliseconds", OverflowingLease.class, "'200000000000d'"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("leaseTimesTheEngineCannotCount")
	void leaseTimesTheEngineCannotCountAreReportedLikeOtherBadDurations(String input, Class<?> service, String value) {
		this.contextRunner.withBean("service", service)
			.run((context) -> assertThat(startupFailure(context))
				.hasMessage("@DistributedLock on " + service.getSimpleName() + ".run() of bean 'service', attribute"
						+ " 'leaseTime': " + value + " cannot be kept by Redis, which counts whole milliseconds"));
	}

	private static Throwable startupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof InvalidLockAnnotationException)) {
			failure = failure.getCause();
		}
		assertThat(failure)
			.as("InvalidLockAnnotationException in %s",
					NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
			.isNotNull();
		return failure;
	}

	private static Set<String> redisKeys(AssertableApplicationContext context, String pattern) {
		return context.getBean(StringRedisTemplate.class).keys(pattern);
	}

	private static String sha256(String value) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What a locked method saw while it ran.
	 *
	 * @param lockKey the lock's Redis key
	 * @param lockKeyExisted whether Redis had it
	 * @param fencingCounter the value of its fencing key
	 */
	record LockedCall(String lockKey, boolean lockKeyExisted, @Nullable String fencingCounter) {

	}

	/**
	 * Something to run that may throw.
	 */
	@FunctionalInterface
	interface Inside {

		void run() throws Exception;

	}

	@Configuration(proxyBeanMethods = false)
	static class KeyedServiceConfiguration {

		@Bean
		KeyedService keyedService(StringRedisTemplate redis) {
			return new KeyedService(redis);
		}

	}

	static class KeyedService {

		private final StringRedisTemplate redis;

		private final AtomicInteger calls = new AtomicInteger();

		private volatile @Nullable String lastLockKey;

		KeyedService(StringRedisTemplate redis) {
			this.redis = redis;
		}

		@DistributedLock(name = "order", key = "#key")
		public LockedCall lock(@Nullable String key) {
			return seen();
		}

		@DistributedLock(name = "{orders}", key = "#key")
		public LockedCall lockTagged(String key) {
			return seen();
		}

		@DistributedLock(name = "order", key = "#key")
		public void lockWhile(String key, Inside inside) throws Exception {
			this.lastLockKey = seen().lockKey();
			inside.run();
		}

		@DistributedLock(name = "order:a", key = "#key")
		public String lockOrderA(String key) {
			return seen().lockKey();
		}

		public int calls() {
			return this.calls.get();
		}

		public @Nullable String lastLockKey() {
			return this.lastLockKey;
		}

		private LockedCall seen() {
			this.calls.incrementAndGet();
			String lockKey = "lock:" + LockContext.currentLease().orElseThrow().name();
			return new LockedCall(lockKey, Boolean.TRUE.equals(this.redis.hasKey(lockKey)),
					this.redis.opsForValue().get(LockKeys.fenceKey(lockKey)));
		}

	}

	static class BillingService {

		@DistributedLock(name = "{billing}", key = "#id", waitTime = "1s")
		public long lockKeyed(String id, LongSupplier inside) {
			return inside.getAsLong();
		}

		@DistributedLock(name = "{billing}", waitTime = "1s")
		public long lockFenced() {
			return LockContext.currentLease().orElseThrow().fencingToken();
		}

	}

	static class StrayBraceService {

		@DistributedLock(name = "a}b")
		public void run() {
		}

	}

	static class NegativeWait {

		@DistributedLock(name = "d", waitTime = "-1s")
		public void run() {
		}

	}

	static class NegativeLease {

		@DistributedLock(name = "d", leaseTime = "-5ms")
		public void run() {
		}

	}

	static class ZeroLease {

		@DistributedLock(name = "d", leaseTime = "0s")
		public void run() {
		}

	}

	static class ZeroMinHold {

		@DistributedLock(name = "d", minHoldTime = "0ms")
		public void run() {
		}

	}

	static class UnparsableWait {

		@DistributedLock(name = "d", waitTime = "five seconds")
		public void run() {
		}

	}

	static class UnresolvableWait {

		@DistributedLock(name = "d", waitTime = "${missing.wait}")
		public void run() {
		}

	}

	static class ZeroWait {

		@DistributedLock(name = "zero", waitTime = "0s")
		public String run() {
			return "ran";
		}

	}

	static class HundredThousandDays {

		private final StringRedisTemplate redis;

		HundredThousandDays(StringRedisTemplate redis) {
			this.redis = redis;
		}

		@DistributedLock(name = "long", waitTime = "100000d", leaseTime = "100000d")
		public long lockedTtl() {
			Long ttl = this.redis.getExpire("lock:long", TimeUnit.MILLISECONDS);
			return (ttl != null) ? ttl : -1;
		}

	}

	static class SubMillisecondLease {

		@DistributedLock(name = "short", leaseTime = "500us")
		public void run() {
		}

	}

	static class OverflowingLease {

		@DistributedLock(name = "overflow", leaseTime = "200000000000d")
		public void run() {
		}

	}

}
