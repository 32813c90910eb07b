package dev.distlock.faults;

import java.time.Duration;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLease;
import dev.distlock.redis.TestDriver;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis frozen ({@code SIGSTOP}) or stopped, on every {@link TestDriver}: an acquisition
 * fails with a {@link DistributedLockException} within about twice the driver's timeout
 * (2 seconds in {@link TestLockRegistry}), never hangs, and locking works again once
 * Redis goes on ({@code SIGCONT}) or is back.
 *
 * <p>
 * What bounds the wait differs by driver. On Lettuce, its own client or through Spring
 * Data Redis, a command fails after the command timeout
 * ({@code spring.data.redis.timeout}), and the engine waits no longer for any reply. A
 * Jedis call is synchronous and ends with its socket: on a frozen server, when the socket
 * read timeout is over, which Boot sets from {@code spring.data.redis.timeout}; then the
 * pool (commons-pool2) replaces the broken connection at once, in the caller's thread,
 * and the new connection's handshake waits for the read timeout once more, so that the
 * call ends after about twice the timeout. On a stopped server a pooled connection fails
 * at once (end of stream) and a new one is refused at once, or fails after the connect
 * timeout ({@code spring.data.redis.connect-timeout}) when nothing answers. Borrowing
 * from the pool waits only when every connection is taken, for as long as
 * {@code spring.data.redis.jedis.pool.max-wait} (no limit by default), so that the other
 * callers' timeouts bound it then.
 */
@Timeout(60)
class StalledRedisTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	/** The driver's timeout, as {@link TestLockRegistry} sets it. */
	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	/** Slack for a busy machine on top of the bound the drivers give. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	/** How long Lettuce may take to reconnect once Redis answers (its backoff grows). */
	private static final Duration RECONNECT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void acquireFailsPromptlyWhileRedisIsFrozenAndLockingWorksAgainOnceItGoesOn(TestDriver driver) {
		assertOutageFailsPromptlyAndHeals(driver, "frozen", redis.server()::pause, redis.server()::resume);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void acquireFailsPromptlyWhileRedisIsDownAndLockingWorksAgainOnceItIsBack(TestDriver driver) {
		assertOutageFailsPromptlyAndHeals(driver, "down", redis.server()::stop, redis.server()::restart);
	}

	/**
	 * Start an outage under a registry of the given driver whose connections have
	 * answered once, acquire a lock, end the outage, and acquire the lock again.
	 * @param outage the name of the outage and of the lock
	 * @param start starts the outage
	 * @param end ends it
	 */
	private void assertOutageFailsPromptlyAndHeals(TestDriver driver, String outage, Runnable start, Runnable end) {
		TestLockRegistry registry = this.closer.add(TestLockRegistry.create(driver, redis.server().uri(), LEASE));
		registry.registry().acquire("warm-up", Duration.ZERO).release();
		start.run();
		long startNanos = System.nanoTime();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry.registry().tryAcquire(outage, Duration.ZERO));
		Duration failedAfter = Duration.ofNanos(System.nanoTime() - startNanos);
		assertThat(failedAfter).as("within twice the driver's timeout")
			.isLessThan(TIMEOUT.multipliedBy(2).plus(MARGIN));
		end.run();
		long endNanos = System.nanoTime();
		await().atMost(RECONNECT)
			.pollInterval(Duration.ofMillis(50))
			.ignoreException(DistributedLockException.class)
			.untilAsserted(() -> registry.registry().ping());
		Duration answeredAfter = Duration.ofNanos(System.nanoTime() - endNanos);
		assertThat(registry.registry().tryAcquire(outage, Duration.ZERO))
			.as("free: the acquisition that failed during the outage left no lock behind")
			.hasValueSatisfying(LockLease::release);
		System.out.println(
				"[stall] " + driver + ": acquisition failed after " + failedAfter.toMillis() + " ms while Redis was "
						+ outage + "; Redis answered again " + answeredAfter.toMillis() + " ms after the outage ended");
	}

}
