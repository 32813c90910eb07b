package dev.distlock.leader;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockName;

/**
 * How a registry tells its observer and its event listener of the terms of its
 * {@link LockLeadership}s: on a thread of its own, in the order they were published,
 * never under a lock of the registry, so that a listener may call back into the
 * leadership.
 *
 * @since 0.1.0
 */
public interface LeadershipEvents {

	/**
	 * Tell of a term that began, without waiting for the listener.
	 * @param name the leadership's name
	 * @param event the grant
	 */
	void granted(LockName name, LeadershipGrantedEvent event);

	/**
	 * Tell of a term that ended, and return once the listener was told, the registry
	 * dropped the event, or the registry's time to wait for a listener passed. Never
	 * called by the thread that tells the listener.
	 * @param name the leadership's name
	 * @param event the revocation
	 * @param first run on the thread that tells the listener, just before it is told,
	 * unless the event is dropped; it does not throw
	 */
	void revoked(LockName name, LeadershipRevokedEvent event, Runnable first);

	/**
	 * Return whether the calling thread is the one that tells the listener: it must not
	 * wait for what waits for the delivery of a later event.
	 * @return whether called by the listener
	 */
	boolean calledByListener();

}
