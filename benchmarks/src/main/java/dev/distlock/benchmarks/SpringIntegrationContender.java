package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration's {@code RedisLockRegistry} on a Spring Data Redis connection
 * factory (Lettuce or Jedis), in spin or pub/sub mode. Its locks expire after 30 seconds
 * unless a renewal scheduler is set; only the held-locks scenario uses a registry with
 * one.
 *
 * @since 0.1.0
 */
public final class SpringIntegrationContender implements Contender {

	private final String name;

	private final String registryKey;

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	private final RedisLockRegistry renewing;

	private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

	/**
	 * Connect the contender.
	 * @param name the name in the report
	 * @param driver the driver under Spring Data Redis
	 * @param host Redis host
	 * @param port Redis port
	 * @param leaseTime the lease ({@code expireAfter}) of held locks, renewed every third
	 * of it
	 * @param type spin or pub/sub
	 */
	public SpringIntegrationContender(String name, SpringDataDriver driver, String host, int port, Duration leaseTime,
			RedisLockType type) {
		this.name = name;
		this.registryKey = (type == RedisLockType.SPIN_LOCK) ? "si-spin" : "si-pubsub";
		this.connectionFactory = driver.connect(host, port);
		this.registry = new RedisLockRegistry(this.connectionFactory, this.registryKey, Duration.ofSeconds(30));
		this.registry.setRedisLockType(type);
		this.scheduler.setThreadNamePrefix("si-renewal-");
		this.scheduler.initialize();
		this.renewing = new RedisLockRegistry(this.connectionFactory, this.registryKey, leaseTime);
		this.renewing.setRedisLockType(type);
		this.renewing.setRenewalTaskScheduler(this.scheduler);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void locked(String name, Runnable work) {
		Contender.runHolding(this.registry.obtain(name), work);
	}

	@Override
	public boolean reentrant() {
		return true;
	}

	@Override
	public boolean renewsHeldLocks() {
		return true;
	}

	@Override
	public Held hold(String name) {
		Lock lock = this.renewing.obtain(name);
		lock.lock();
		return lock::unlock;
	}

	@Override
	public String redisKey(String name) {
		return this.registryKey + ":" + name;
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.renewing.destroy();
		this.scheduler.shutdown();
		SpringDataDriver.destroy(this.connectionFactory);
	}

}
