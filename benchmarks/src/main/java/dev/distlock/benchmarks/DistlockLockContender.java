package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockObserver;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import io.lettuce.core.RedisClient;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * distlock's {@code LockRegistry} on its own Lettuce client or through Spring Data Redis:
 * either the thread-owned {@code obtain(name).lock()} / {@code unlock()} or the
 * owner-free {@code acquire} / {@code release}.
 *
 * @since 0.1.0
 */
public final class DistlockLockContender implements Contender {

	private static final Duration WAIT = Duration.ofHours(1);

	private static final String KEY_PREFIX = "dl:";

	private static final Consumer<LockEvent> NO_EVENTS = (event) -> {
	};

	private final String name;

	private final boolean lease;

	private final RedisLockRegistry registry;

	private final Runnable disconnect;

	private DistlockLockContender(String name, boolean lease, RedisLockRegistry registry, Runnable disconnect) {
		this.name = name;
		this.lease = lease;
		this.registry = registry;
		this.disconnect = disconnect;
	}

	/**
	 * Connect the contender to Lettuce's own client.
	 * @param name the name in the report
	 * @param redisUri where Redis listens
	 * @param leaseTime the lease in watchdog mode
	 * @param lease whether to use {@code acquire}/{@code release} rather than
	 * {@code lock}/{@code unlock}
	 * @return the contender
	 */
	public static DistlockLockContender onLettuce(String name, String redisUri, Duration leaseTime, boolean lease) {
		RedisClient client = RedisClient.create(redisUri);
		return new DistlockLockContender(name, lease, new RedisLockRegistry(client, settings(leaseTime), NO_EVENTS),
				() -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

	/**
	 * Connect the contender through Spring Data Redis, taking locks with
	 * {@code lock}/{@code unlock}.
	 * @param name the name in the report
	 * @param driver the driver under Spring Data Redis
	 * @param host Redis host
	 * @param port Redis port
	 * @param leaseTime the lease in watchdog mode
	 * @return the contender
	 */
	public static DistlockLockContender onSpringData(String name, SpringDataDriver driver, String host, int port,
			Duration leaseTime) {
		RedisConnectionFactory factory = driver.connect(host, port);
		return new DistlockLockContender(name, false,
				new RedisLockRegistry(factory, settings(leaseTime), NO_EVENTS, LockObserver.NONE),
				() -> SpringDataDriver.destroy(factory));
	}

	private static RedisLockSettings settings(Duration leaseTime) {
		return RedisLockSettings.of(KEY_PREFIX, leaseTime).withCommandTimeout(Duration.ofSeconds(10));
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void locked(String name, Runnable work) {
		if (this.lease) {
			try (LockLease held = this.registry.acquire(name, WAIT)) {
				work.run();
			}
			return;
		}
		Contender.runHolding(this.registry.obtain(name), work);
	}

	@Override
	public boolean reentrant() {
		return !this.lease;
	}

	@Override
	public boolean renewsHeldLocks() {
		return true;
	}

	@Override
	public Held hold(String name) {
		return this.registry.acquire(name, WAIT)::release;
	}

	@Override
	public String redisKey(String name) {
		return KEY_PREFIX + name;
	}

	@Override
	public void close() {
		this.registry.close();
		this.disconnect.run();
	}

}
