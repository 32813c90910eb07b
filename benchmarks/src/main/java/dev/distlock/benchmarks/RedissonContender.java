package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock}, with a fixed lease ({@code lock(leaseTime)}) or in watchdog
 * mode ({@code lock()}, renewed every third of {@code lockWatchdogTimeout}).
 *
 * @since 0.1.0
 */
public final class RedissonContender implements Contender {

	private final String name;

	private final long fixedLeaseMillis;

	private final RedissonClient redisson;

	/**
	 * Connect the contender.
	 * @param name the name in the report
	 * @param redisUri where Redis listens
	 * @param leaseTime the watchdog timeout
	 * @param fixedLease the fixed lease, or {@code null} for watchdog mode
	 */
	public RedissonContender(String name, String redisUri, Duration leaseTime, @Nullable Duration fixedLease) {
		this.name = name;
		this.fixedLeaseMillis = (fixedLease != null) ? fixedLease.toMillis() : -1;
		Config config = new Config();
		config.setLockWatchdogTimeout(leaseTime.toMillis());
		config.useSingleServer().setAddress(redisUri);
		this.redisson = Redisson.create(config);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void locked(String name, Runnable work) {
		RLock lock = this.redisson.getLock(name);
		if (this.fixedLeaseMillis <= 0) {
			Contender.runHolding(lock, work);
			return;
		}
		lock.lock(this.fixedLeaseMillis, TimeUnit.MILLISECONDS);
		try {
			work.run();
		}
		finally {
			lock.unlock();
		}
	}

	@Override
	public boolean reentrant() {
		return true;
	}

	@Override
	public boolean renewsHeldLocks() {
		return this.fixedLeaseMillis <= 0;
	}

	@Override
	public Held hold(String name) {
		RLock lock = this.redisson.getLock(name);
		lock.lock();
		return lock::forceUnlock;
	}

	@Override
	public String redisKey(String name) {
		return name;
	}

	@Override
	public void close() {
		this.redisson.shutdown(0, 2, TimeUnit.SECONDS);
	}

}
