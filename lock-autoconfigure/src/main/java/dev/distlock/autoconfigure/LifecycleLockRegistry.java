package dev.distlock.autoconfigure;

import java.util.function.Consumer;

import dev.distlock.LockLostEvent;
import dev.distlock.LockObserver;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The {@link RedisLockRegistry} of an application context, on the client of Spring Boot's
 * {@link LettuceConnectionFactory}. The factory is a {@link SmartLifecycle} whose stop
 * shuts its client down, closing every connection opened from it, before any bean is
 * destroyed: so the registry closes its connections when it is stopped, in the factory's
 * phase and, as a bean that depends on the factory, before it.
 */
final class LifecycleLockRegistry extends RedisLockRegistry implements SmartLifecycle {

	private final int phase;

	private volatile boolean running;

	LifecycleLockRegistry(LettuceConnectionFactory connectionFactory, RedisLockSettings settings,
			Consumer<LockLostEvent> lossListener, LockObserver observer) {
		super(connectionFactory.getRequiredNativeClient(), settings, lossListener, observer);
		this.phase = connectionFactory.getPhase();
	}

	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Close the registry: locks can no longer be taken once the connection factory stops.
	 */
	@Override
	public void stop() {
		this.running = false;
		close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

}
