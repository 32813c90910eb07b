package dev.distlock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.distlock.LockLease;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A registry subscribes to its grants channel once, when its first waiter waits, and the
 * waiters that come while Redis has not confirmed it yet wait for the same confirmation.
 * One of them giving up must not fail the others. A {@link TcpProxy} with latency
 * stretches the confirmation so that both waiters wait for it.
 */
@Timeout(90)
class SubscriptionFaultTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final String AWAITING_SUBSCRIPTION = "dev.distlock.redis.ReleaseSignals.subscribe";

	private static final String AWAITING_REPLY = "dev.distlock.redis.Replies.await";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void waiterInterruptedWhileTheSubscriptionIsConfirmedLeavesAnotherWaiterWaiting() throws Exception {
		TcpProxy proxy = this.closer.add(TcpProxy.start(redis.server().port()));
		RedisLockSettings settings = RedisLockSettings.of("lock:", Duration.ofSeconds(30))
			.withCommandTimeout(Duration.ofSeconds(10));
		RedisLockRegistry registry = this.closer.add(TestLockRegistry.create(proxy.uri(), settings)).registry();
		RedisLockRegistry rival = this.closer.add(TestLockRegistry.create(redis.server().uri(), settings)).registry();
		LockLease first = rival.acquire("first", Duration.ZERO);
		LockLease second = rival.acquire("second", Duration.ZERO);
		registry.ping();
		TestThread interrupted = this.closer.add(TestThread.start("interrupted"));
		TestThread waiting = this.closer.add(TestThread.start("waiting"));
		proxy.setLatency(Duration.ofMillis(400));
		CompletableFuture<Boolean> given = interrupted.call(() -> registry.obtain("first").tryLock(WAIT));
		CompletableFuture<Boolean> taken = waiting.call(() -> registry.obtain("second").tryLock(WAIT));
		awaitInSubscriptionReply(interrupted);
		awaitInSubscriptionReply(waiting);
		interrupted.interrupt();
		assertThat(given).failsWithin(WAIT);
		proxy.heal();
		second.release();
		assertThat(taken.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the other waiter took its lock").isTrue();
		first.release();
	}

	/**
	 * On Spring Data Redis, a listener container holds the subscription and recovers it
	 * after a connection failure, sleeping between attempts. A registry closed meanwhile
	 * leaves no thread behind: no recovery subscribes again once Redis is back.
	 */
	@Test
	void registryClosedWhileItsSubscriptionRecoversLeavesNoSubscriptionThreadBehind() throws Exception {
		TcpProxy proxy = this.closer.add(TcpProxy.start(redis.server().port()));
		RedisLockSettings settings = RedisLockSettings.of("lock:", Duration.ofSeconds(30))
			.withCommandTimeout(Duration.ofSeconds(2));
		Set<Long> before = subscriptionThreads();
		TestLockRegistry registry = TestLockRegistry.create(TestDriver.SPRING_DATA_JEDIS, proxy.uri(), settings);
		try {
			RedisLockRegistry rival = this.closer.add(TestLockRegistry.create(redis.server().uri(), settings))
				.registry();
			LockLease held = rival.acquire("held", Duration.ZERO);
			assertThat(registry.registry().obtain("held").tryLock(Duration.ofMillis(300))).isFalse();
			held.release();
			proxy.cutConnections();
			// The container's recovery fails while the proxy refuses connections
			await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> recovering(before));
		}
		finally {
			registry.close();
		}
		proxy.heal();
		await().atMost(WAIT)
			.during(Duration.ofSeconds(3))
			.untilAsserted(() -> assertThat(subscriptionThreads()).as("subscription threads left").isSubsetOf(before));
	}

	/**
	 * Return whether a thread of a release signals' listener container, other than the
	 * given ones, recovers a lost subscription.
	 */
	private static boolean recovering(Set<Long> others) {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((thread) -> subscriptionThreads().contains(thread.getKey().getId())
					&& !others.contains(thread.getKey().getId()))
			.flatMap((thread) -> Arrays.stream(thread.getValue()))
			.anyMatch((frame) -> frame.getMethodName().equals("potentiallyRecover"));
	}

	/**
	 * Return the ids of the live threads of release signals' listener containers.
	 */
	private static Set<Long> subscriptionThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && thread.getName().startsWith("distlock-release-signals-")
					&& !thread.getName().endsWith("registration"))
			.map(Thread::getId)
			.collect(Collectors.toSet());
	}

	/**
	 * Wait until the thread waits for Redis to confirm the subscription.
	 */
	private static void awaitInSubscriptionReply(TestThread thread) {
		await().atMost(WAIT)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> thread.isIn(AWAITING_SUBSCRIPTION) && thread.isIn(AWAITING_REPLY));
	}

}
