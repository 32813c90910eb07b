package dev.distlock;

/**
 * Told what a lock registry does, for metrics and traces: when a caller starts to wait
 * for a lock, how the wait ends, and what becomes of the hold it got, so that both can be
 * timed from start to end. Called on the thread that waits, releases, or notices the loss
 * or the failed renewal, or on a leadership's thread; implementations must be quick and
 * must not throw.
 *
 * <p>
 * {@link #NONE} and the {@link Wait#NONE} and {@link Hold#NONE} it hands out keep no
 * state, so a registry that nobody observes allocates nothing for it.
 *
 * @since 0.1.0
 */
public interface LockObserver {

	/** An observer that does nothing. */
	LockObserver NONE = new LockObserver() {
	};

	/**
	 * A caller starts to wait for a lock (a wait time of zero tries once).
	 * @param name the lock name as the caller gave it: its {@link LockName#base() base}
	 * is the annotation's name or the name a programmatic caller gave, and only a keyed
	 * name has a {@link LockName#keyValue() key value}
	 * @return the wait, to be told once how it ended
	 */
	default Wait waitStarted(LockName name) {
		return Wait.NONE;
	}

	/**
	 * One caller's wait for a lock, told once how it ended.
	 */
	interface Wait {

		/** A wait that nobody observes. */
		Wait NONE = new Wait() {
		};

		/**
		 * The lock was acquired: the wait ends and the hold starts.
		 * @param fencingToken the fencing token of the new hold
		 * @return the hold, to be told what becomes of it
		 */
		default Hold acquired(long fencingToken) {
			return Hold.NONE;
		}

		/**
		 * The lock was not acquired within the wait time.
		 */
		default void notAcquired() {
		}

		/**
		 * The wait ended by a failure: Redis could not be reached, or the caller was
		 * interrupted.
		 * @param failure what ended it
		 */
		default void failed(Throwable failure) {
		}

	}

	/**
	 * One hold of a lock, from its acquisition to its release.
	 */
	interface Hold {

		/** A hold that nobody observes. */
		Hold NONE = new Hold() {
		};

		/**
		 * A renewal of the hold failed, leaving time on its lease.
		 * @param event which hold, why, and how much of its lease is left
		 */
		default void renewalFailed(LockRenewalFailedEvent event) {
		}

		/**
		 * The hold was found lost; it is still to be released.
		 * @param event what was lost, and why
		 */
		default void lost(LockLostEvent event) {
		}

		/**
		 * The hold was released, in this JVM and in Redis (or Redis could not be
		 * reached); called once, after any loss its release found.
		 */
		default void released() {
		}

	}

	/**
	 * A leadership's term began: this instance is leader.
	 * @param name the leadership's name
	 * @param event which term
	 */
	default void leadershipGranted(LockName name, LeadershipGrantedEvent event) {
	}

	/**
	 * A leadership's term ended: this instance is no longer leader.
	 * @param name the leadership's name
	 * @param event which term, and why it ended
	 */
	default void leadershipRevoked(LockName name, LeadershipRevokedEvent event) {
	}

	/**
	 * A node of a quorum of independent Redis nodes (Redlock) replied to an attempt to
	 * take a lock (an acquisition or a local hand-over), or failed to, as when it did not
	 * answer within the command timeout. Called on the thread that completed the reply,
	 * often the driver's.
	 * @param node the node's position in the list of nodes the registry was created with,
	 * the order of {@link LockIntrospector#pingNodes()}
	 * @param reply what the node did with the attempt
	 */
	default void nodeReplied(int node, NodeReply reply) {
	}

	/**
	 * What a node of a quorum did with an attempt to take a lock.
	 */
	enum NodeReply {

		/** It granted the lock. */
		GRANTED,

		/**
		 * It refused the lock: held there by another, or the node has not been up a lease
		 * yet.
		 */
		REFUSED,

		/** It failed, or did not answer in time. */
		FAILED

	}

}
