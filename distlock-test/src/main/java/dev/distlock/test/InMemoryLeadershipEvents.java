package dev.distlock.test;

import java.util.function.Consumer;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.leader.LeadershipEvents;

/**
 * Tells of the terms of an {@link InMemoryLockRegistry}'s leaderships: the observer and
 * the listener, on the registry's event thread, after the events before them.
 */
final class InMemoryLeadershipEvents implements LeadershipEvents {

	private final InMemoryLockRegistry registry;

	private final Consumer<? super LockEvent> eventListener;

	private final LockObserver observer;

	InMemoryLeadershipEvents(InMemoryLockRegistry registry, Consumer<? super LockEvent> eventListener,
			LockObserver observer) {
		this.registry = registry;
		this.eventListener = eventListener;
		this.observer = observer;
	}

	@Override
	public void granted(LockName name, LeadershipGrantedEvent event) {
		this.registry.publish(() -> {
			this.observer.leadershipGranted(name, event);
			this.eventListener.accept(event);
		});
	}

	@Override
	public void revoked(LockName name, LeadershipRevokedEvent event, Runnable first) {
		this.registry.awaitDelivery(this.registry.publish(() -> {
			first.run();
			this.observer.leadershipRevoked(name, event);
			this.eventListener.accept(event);
		}));
	}

	@Override
	public boolean calledByListener() {
		return InMemoryLockRegistry.isDelivering();
	}

}
