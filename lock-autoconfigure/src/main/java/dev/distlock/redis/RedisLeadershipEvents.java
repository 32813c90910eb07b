package dev.distlock.redis;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.leader.LeadershipEvents;

/**
 * Tells of the terms of a {@link RedisLockRegistry}'s leaderships: tells the observer on
 * the leadership's thread, and publishes the event on the registry's event thread.
 */
final class RedisLeadershipEvents implements LeadershipEvents {

	private final LockEventPublisher events;

	private final LockObserver observer;

	RedisLeadershipEvents(LockEventPublisher events, LockObserver observer) {
		this.events = events;
		this.observer = observer;
	}

	@Override
	public void granted(LockName name, LeadershipGrantedEvent event) {
		this.observer.leadershipGranted(name, event);
		this.events.publish(event);
	}

	@Override
	public void revoked(LockName name, LeadershipRevokedEvent event, Runnable first) {
		this.observer.leadershipRevoked(name, event);
		this.events.publishAndAwait(event, first);
	}

	@Override
	public boolean calledByListener() {
		return this.events.calledByListener();
	}

}
