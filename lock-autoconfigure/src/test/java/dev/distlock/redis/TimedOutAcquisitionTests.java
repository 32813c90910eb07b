package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TcpProxy;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An acquisition whose reply did not come within the command timeout, because Redis was
 * paused ({@code SIGSTOP}) with the command in its buffers, on every driver: the call
 * fails at the timeout, and once Redis resumes and runs the late acquisition, the lock is
 * given back long before its lease would run out. On a pooled connection (Jedis) the
 * give-back travels on another socket than the acquisition; Redis reads its sockets in
 * the order they became readable, so the acquisition written first runs first. When only
 * the acquisition's socket stalls, the give-back runs first: it marks the token given
 * back, and the acquisition that arrives after it takes nothing, for a lock, a read share
 * and a permit alike.
 */
@Timeout(60)
class TimedOutAcquisitionTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void lateAcquisitionOfAPausedRedisIsGivenBackLongBeforeItsLease(TestDriver driver) throws Exception {
		RedisServer server = this.closer.add(RedisServer.start());
		RedisLockSettings settings = RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		RedisLockRegistry registry = this.closer.add(TestLockRegistry.create(driver, server.uri(), settings))
			.registry();
		RedisLockRegistry rival = this.closer.add(TestLockRegistry.create(driver, server.uri(), settings)).registry();
		registry.acquire("warm-up", Duration.ZERO).release();
		server.pause();
		try {
			CompletableFuture<Void> attempt = CompletableFuture
				.runAsync(() -> registry.tryAcquire("stalled", Duration.ZERO));
			assertThatExceptionOfType(CompletionException.class).isThrownBy(attempt::join)
				.withCauseInstanceOf(DistributedLockException.class);
		}
		finally {
			server.resume();
		}
		RedisCommands<String, String> commands = this.closer.add(RedisTestClient.connect(server.uri(), LEASE)).sync();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(commands.exists("lock:stalled")).isZero());
		assertThat(rival.tryAcquire("stalled", Duration.ofSeconds(5))).isPresent();
	}

	/**
	 * The one pooled connection of a registry on Jedis stalls (a {@link TcpProxy} holds
	 * its bytes) while an attempt runs on it: the attempt fails at the command timeout,
	 * Jedis closes that connection, and the give-back goes to Redis on a new one, which
	 * flows. Once the stalled connection heals, the attempt it held reaches Redis after
	 * its give-back: it must take nothing, so that a rival gets the lock (the write lock
	 * of a read share's name, the only permit) at once rather than after the lease.
	 */
	@ParameterizedTest
	@EnumSource(Attempt.class)
	void attemptThatReachesRedisAfterItsGiveBackOnAnotherPooledConnectionTakesNothing(Attempt attempt) {
		RedisServer server = this.closer.add(RedisServer.start());
		TcpProxy proxy = this.closer.add(TcpProxy.start(server.port()));
		RedisLockSettings settings = RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		RedisLockRegistry registry = this.closer
			.add(TestLockRegistry.create(TestDriver.SPRING_DATA_JEDIS, proxy.uri(), settings))
			.registry();
		RedisLockRegistry rival = this.closer
			.add(TestLockRegistry.create(TestDriver.SPRING_DATA_JEDIS, server.uri(), settings))
			.registry();
		CommandStats stats = new CommandStats(this.closer.add(RedisTestClient.connect(server.uri(), LEASE)).sync());
		attempt.takeAndRelease(registry, "warm-up");
		assertThat(proxy.openConnections()).as("connections in the pool").isOne();
		long scriptsRun = scriptsRun(stats);
		proxy.stallOpenConnections();
		try {
			assertThatExceptionOfType(DistributedLockException.class)
				.isThrownBy(() -> attempt.take(registry, "stalled"));
			await().atMost(WAIT).until(() -> scriptsRun(stats) == scriptsRun + 1);
		}
		finally {
			proxy.heal();
		}
		await().atMost(WAIT).until(() -> scriptsRun(stats) == scriptsRun + 2);
		assertThat(attempt.takeExclusively(rival, "stalled")).as("taken by a rival at once").isTrue();
	}

	private static long scriptsRun(CommandStats stats) {
		return stats.calls().getOrDefault("evalsha", 0L);
	}

	/**
	 * A kind of attempt that a registry gives back when it fails.
	 */
	enum Attempt {

		/** A lock's. */
		LOCK {

			@Override
			void take(RedisLockRegistry registry, String name) {
				registry.tryAcquire(name, Duration.ZERO);
			}

			@Override
			void takeAndRelease(RedisLockRegistry registry, String name) {
				registry.acquire(name, Duration.ZERO).release();
			}

			@Override
			boolean takeExclusively(RedisLockRegistry registry, String name) {
				return registry.tryAcquire(name, Duration.ZERO).isPresent();
			}

		},

		/** A read share's: its name's write lock is what it keeps out. */
		READ_SHARE {

			@Override
			void take(RedisLockRegistry registry, String name) {
				registry.readWriteLock(name).readLock().tryLock();
			}

			@Override
			void takeAndRelease(RedisLockRegistry registry, String name) {
				FencedReadWriteLock lock = registry.readWriteLock(name);
				lock.readLock().lock();
				lock.readLock().unlock();
			}

			@Override
			boolean takeExclusively(RedisLockRegistry registry, String name) {
				return registry.readWriteLock(name).writeLock().tryLock();
			}

		},

		/** A permit's, of a semaphore of one permit. */
		PERMIT {

			@Override
			void take(RedisLockRegistry registry, String name) {
				registry.semaphore(name, 1).tryAcquire(Duration.ZERO);
			}

			@Override
			void takeAndRelease(RedisLockRegistry registry, String name) {
				registry.semaphore(name, 1).tryAcquire(Duration.ZERO).orElseThrow().release();
			}

			@Override
			boolean takeExclusively(RedisLockRegistry registry, String name) {
				return registry.semaphore(name, 1).tryAcquire(Duration.ZERO).isPresent();
			}

		};

		/**
		 * Try once to take the hold of the given name.
		 */
		abstract void take(RedisLockRegistry registry, String name);

		/**
		 * Take the hold of the given name and release it.
		 */
		abstract void takeAndRelease(RedisLockRegistry registry, String name);

		/**
		 * Try once to take what a hold of this kind keeps from others: the lock, the
		 * write lock, the only permit.
		 * @return whether it was taken
		 */
		abstract boolean takeExclusively(RedisLockRegistry registry, String name);

	}

}
