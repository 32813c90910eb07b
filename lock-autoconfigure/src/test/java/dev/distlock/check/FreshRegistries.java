package dev.distlock.check;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.distlock.LockEvent;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestDriver;
import dev.distlock.redis.TestLockRegistry;

/**
 * Opens registries besides a worker's own, through its driver, with its settings and its
 * event recording, each recording its holds in the worker's history under ids of its own;
 * a fresh registry has not subscribed to its grants yet.
 */
final class FreshRegistries {

	private final Supplier<TestLockRegistry> factory;

	private final History history;

	private final String incarnation;

	private final ValiditySampler sampler;

	private final Duration lockDelay;

	private final AtomicInteger opened = new AtomicInteger();

	FreshRegistries(TestDriver driver, String uri, RedisLockSettings settings, Consumer<LockEvent> events,
			History history, String incarnation, ValiditySampler sampler) {
		this.factory = () -> TestLockRegistry.create(driver, uri, settings, events);
		this.history = history;
		this.incarnation = incarnation;
		this.sampler = sampler;
		this.lockDelay = settings.lockDelay();
	}

	/**
	 * Open a fresh registry; close it after use.
	 * @return the registry
	 */
	Fresh open() {
		return open("fresh" + this.opened.incrementAndGet());
	}

	/**
	 * Open the registry of the worker's rival: the one its {@code take} calls lock
	 * through, as another process would, so that no thread of the worker's own registry
	 * that waits for the lock queues them behind it; close it with the worker.
	 * @return the registry
	 */
	Fresh openRival() {
		return open("rival");
	}

	private Fresh open(String name) {
		TestLockRegistry registry = this.factory.get();
		String holdIds = this.incarnation + "-" + name;
		return new Fresh(registry,
				new RecordingLockRegistry(registry.registry(), this.history, holdIds, this.sampler, this.lockDelay));
	}

	/**
	 * A fresh registry and the recorder in front of it.
	 *
	 * @param registry the registry, closed with this
	 * @param recorder the recorder of its holds and acquisitions
	 */
	record Fresh(TestLockRegistry registry, RecordingLockRegistry recorder) implements AutoCloseable {

		@Override
		public void close() {
			this.registry.close();
		}

	}

}
