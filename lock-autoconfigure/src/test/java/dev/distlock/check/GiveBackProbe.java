package dev.distlock.check;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLease;
import dev.distlock.redis.LockKeys;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestDriver;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TcpProxy;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Makes an acquisition reach Redis after its give-back, and records whether it took the
 * lock ({@code GIVEBACK}): a registry on a connection pool behind a proxy of its own (in
 * front of the worker's) tries a lock of a name nobody else uses while its one pooled
 * connection is stalled, so that the attempt times out and its token is given back on
 * another connection. Once Redis marked the token given back, the stall heals and the
 * attempt reaches Redis; the lock key must not appear then ({@code taken=false}). A
 * give-back not seen in Redis ({@code marked=false}) proves nothing: the attempt may have
 * come first.
 */
final class GiveBackProbe {

	/** How long the probe waits for Redis to mark the token given back. */
	private static final Duration MARK_BOUND = Duration.ofSeconds(2);

	/**
	 * How long the probe looks for the lock key after the heal: the stalled attempt
	 * reaches Redis within it, and the key it would set lives a whole lease.
	 */
	private static final Duration LOOK = Duration.ofMillis(500);

	private final String lockUri;

	private final RedisLockSettings settings;

	private final History history;

	GiveBackProbe(String lockUri, RedisLockSettings settings, History history) {
		this.lockUri = lockUri;
		this.settings = settings;
		this.history = history;
	}

	/**
	 * Run the probe on a lock named after the given id, and print {@code PROBED <id>}.
	 * @param id the id the nemesis gave the probe
	 */
	void run(String id) {
		String name = "g:" + id;
		String key = new LockKeys(CheckWorkerMain.KEY_PREFIX).lockKey(name);
		long start = History.now();
		boolean marked = false;
		boolean taken = false;
		try (Closer closer = new Closer()) {
			TcpProxy proxy = closer.add(TcpProxy.start(RedisURI.create(this.lockUri).getPort()));
			RedisCommands<String, String> redis = closer
				.add(RedisTestClient.connect(this.lockUri, this.settings.commandTimeout()))
				.sync();
			RedisLockRegistry registry = closer
				.add(TestLockRegistry.create(TestDriver.SPRING_DATA_JEDIS, proxy.uri(), this.settings))
				.registry();
			// One connection in the pool, the one the stall holds
			registry.acquire(name + "-warm-up", Duration.ZERO).release();
			String givenBack = LockKeys.helperKey(key, "given-back");
			proxy.stallOpenConnections();
			try {
				// Taken only if the attempt was not stalled: then there is nothing to see
				registry.tryAcquire(name, Duration.ZERO).ifPresent(LockLease::release);
			}
			catch (DistributedLockException ex) {
				marked = within(MARK_BOUND, () -> redis.exists(givenBack) > 0);
			}
			finally {
				proxy.heal();
			}
			taken = marked && within(LOOK, () -> redis.exists(key) > 0);
		}
		catch (Exception ex) {
			// A probe cut short by another fault proves nothing
		}
		this.history.record("GIVEBACK", "name", name, "start", start, "end", History.now(), "marked", marked, "taken",
				taken);
		System.out.println("PROBED " + id);
	}

	/**
	 * Look until the condition holds, every 10 ms, for the given time at most.
	 * @return whether it held
	 */
	private static boolean within(Duration bound, BooleanSupplier condition) {
		long deadline = System.nanoTime() + bound.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
		return true;
	}

}
