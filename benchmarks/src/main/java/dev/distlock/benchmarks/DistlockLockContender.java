package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockLease;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import io.lettuce.core.RedisClient;

/**
 * distlock's {@code LockRegistry} on its own Lettuce client: either the thread-owned
 * {@code obtain(name).lock()} / {@code unlock()} or the owner-free {@code acquire} /
 * {@code release}.
 *
 * @since 0.1.0
 */
public final class DistlockLockContender implements Contender {

	private static final Duration WAIT = Duration.ofHours(1);

	private final String name;

	private final boolean lease;

	private final RedisClient client;

	private final RedisLockRegistry registry;

	/**
	 * Create the contender.
	 * @param name the name in the report
	 * @param redisUri where Redis listens
	 * @param leaseTime the lease in watchdog mode
	 * @param lease whether to use {@code acquire}/{@code release} rather than
	 * {@code lock}/{@code unlock}
	 */
	public DistlockLockContender(String name, String redisUri, Duration leaseTime, boolean lease) {
		this.name = name;
		this.lease = lease;
		this.client = RedisClient.create(redisUri);
		this.registry = new RedisLockRegistry(this.client,
				RedisLockSettings.of("dl:", leaseTime).withCommandTimeout(Duration.ofSeconds(10)), (event) -> {
				});
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
		return "dl:" + name;
	}

	@Override
	public void close() {
		this.registry.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
	}

}
