package dev.distlock.faults;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A slow and a broken network between a registry and Redis, made by a {@link TcpProxy}: a
 * latency larger than the renewal margin makes the lease lost (reported, never silently
 * kept), a cut or stalled connection fails calls within the command timeout, and locking
 * works again once the network heals.
 */
@Timeout(60)
class NetworkFaultTests {

	private static final Duration SHORT_LEASE = Duration.ofMillis(300);

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	/** Slack for a busy machine on top of a bound the engine promises. */
	private static final Duration MARGIN = Duration.ofMillis(500);

	/**
	 * How long Lettuce may take to reconnect after the network heals (its backoff grows).
	 */
	private static final Duration RECONNECT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private TcpProxy proxy;

	@BeforeEach
	void startProxy() {
		this.proxy = this.closer.add(TcpProxy.start(redis.server().port()));
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void latencyBeyondTheRenewalMarginMakesTheLeaseLostNotSilentlyKept() {
		TestLockRegistry slow = registry(this.proxy.uri(), SHORT_LEASE);
		TestLockRegistry rival = registry(redis.server().uri(), Duration.ofSeconds(30));
		LockLease lease = slow.registry().acquire("slow", Duration.ZERO);
		assertThat(lease.isValid()).isTrue();
		this.proxy.setLatency(Duration.ofMillis(400));
		long slowSinceNanos = System.nanoTime();
		await().atMost(SHORT_LEASE.plus(MARGIN)).pollInterval(Duration.ofMillis(5)).until(() -> !lease.isValid());
		Duration invalidAfter = Duration.ofNanos(System.nanoTime() - slowSinceNanos);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(slow.lostEvents()).extracting(LockLostEvent::name).containsExactly("slow"));
		Duration reportedAfter = Duration.ofNanos(System.nanoTime() - slowSinceNanos);
		LockLease taken = await().atMost(Duration.ofSeconds(5))
			.until(() -> rival.registry().tryAcquire("slow", Duration.ofMillis(100)), Optional::isPresent)
			.orElseThrow();
		assertThat(lease.isValid()).as("the slow holder never believes it holds a lock someone else took").isFalse();
		assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
		this.proxy.heal();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(taken.isValid()).isTrue();
		System.out.println("[network] latency 400ms, lease 300ms: isValid() false after " + invalidAfter.toMillis()
				+ " ms, LockLostEvent after " + reportedAfter.toMillis() + " ms (" + slow.lostEvents().get(0).reason()
				+ ")");
		taken.release();
	}

	@Test
	void cutConnectionFailsCallsWithinTheCommandTimeoutAndLockingWorksAfterHeal() {
		TestLockRegistry registry = registry(this.proxy.uri(), Duration.ofSeconds(30));
		registry.registry().acquire("warm-up", Duration.ZERO).release();
		this.proxy.cutConnections();
		assertFailsWithinTheCommandTimeout(registry, "cut");
		this.proxy.heal();
		assertLockingWorksAgain(registry, "cut");
	}

	@Test
	void stalledConnectionFailsCallsWithinTheCommandTimeoutAndLockingWorksAfterHeal() {
		TestLockRegistry registry = registry(this.proxy.uri(), Duration.ofSeconds(30));
		registry.registry().acquire("warm-up", Duration.ZERO).release();
		this.proxy.stall();
		assertFailsWithinTheCommandTimeout(registry, "stalled");
		this.proxy.heal();
		assertLockingWorksAgain(registry, "stalled");
	}

	private void assertFailsWithinTheCommandTimeout(TestLockRegistry registry, String name) {
		long startNanos = System.nanoTime();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry.registry().tryAcquire(name, Duration.ZERO))
			.withMessage(
					"Redis did not answer within PT0.5S to acquire lock '" + name + "' (spring.data.redis.timeout)");
		Duration failedAfter = Duration.ofNanos(System.nanoTime() - startNanos);
		assertThat(failedAfter).isBetween(COMMAND_TIMEOUT, COMMAND_TIMEOUT.plus(MARGIN));
		startNanos = System.nanoTime();
		assertThatExceptionOfType(DistributedLockException.class).isThrownBy(registry.registry()::ping)
			.withMessage("Redis did not answer within PT0.5S to answer PING (spring.data.redis.timeout)");
		assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isLessThan(COMMAND_TIMEOUT.plus(MARGIN));
		System.out.println("[network] " + name + ": acquire failed after " + failedAfter.toMillis() + " ms");
	}

	private void assertLockingWorksAgain(TestLockRegistry registry, String name) {
		long healedNanos = System.nanoTime();
		await().atMost(RECONNECT)
			.pollInterval(Duration.ofMillis(50))
			.ignoreException(DistributedLockException.class)
			.untilAsserted(() -> registry.registry().ping());
		Duration reconnected = Duration.ofNanos(System.nanoTime() - healedNanos);
		LockLease lease = await().atMost(Duration.ofSeconds(5))
			.until(() -> registry.registry().tryAcquire(name, Duration.ofMillis(200)), Optional::isPresent)
			.orElseThrow();
		Duration acquired = Duration.ofNanos(System.nanoTime() - healedNanos);
		lease.release();
		TestLockRegistry direct = registry(redis.server().uri(), Duration.ofSeconds(30));
		assertThat(direct.registry().tryAcquire(name, Duration.ZERO))
			.as("the acquisition that timed out during the fault left no lock behind")
			.isPresent();
		System.out.println("[network] " + name + " healed: PING answered after " + reconnected.toMillis()
				+ " ms, lock acquired after " + acquired.toMillis() + " ms");
	}

	private TestLockRegistry registry(String uri, Duration lease) {
		return this.closer.add(
				TestLockRegistry.create(uri, RedisLockSettings.of("lock:", lease).withCommandTimeout(COMMAND_TIMEOUT)));
	}

}
