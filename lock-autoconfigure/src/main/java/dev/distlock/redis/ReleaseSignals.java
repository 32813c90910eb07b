package dev.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;

/**
 * Wakes this JVM's waiters when a lock is granted to them or released: a release that
 * wakes one of this registry's waiters to re-check publishes the lock key on the
 * registry's {@link GrantChannel}, and only there; one that grants it the lock publishes
 * the lock key, {@code !}, then the waiter's token, the number of the attempt that queued
 * it and its fencing token, which the waiter may start on ({@link Subscription#granted}).
 * Releases within this JVM wake its waiters without a message ({@link #fire}). Waiters
 * that poll, since Redis refused the subscription, re-check as the channel says, never
 * later than the holder's lease would run out; this JVM's own releases still wake them at
 * once.
 *
 * <p>
 * Waiting happens under {@code java.util.concurrent} locks, never inside a monitor, so
 * that a virtual thread that waits here does not pin its carrier.
 */
final class ReleaseSignals implements AutoCloseable {

	private final GrantChannel grants;

	/**
	 * The signals of the locks waited for, by lock key, each kept while it has users.
	 * Read by the pub/sub listener without locking; changed one key at a time.
	 */
	private final ConcurrentMap<String, Signal> signals = new ConcurrentHashMap<>();

	ReleaseSignals(RedisLockCommands commands, String keyPrefix) {
		this.grants = new GrantChannel(commands, keyPrefix, this::hear);
	}

	GrantChannel grants() {
		return this.grants;
	}

	/**
	 * Start waiting for the signals of a lock, once the grant channel listens
	 * ({@link GrantChannel#listen}).
	 * @param key the lock key
	 * @return the subscription, to be closed when the waiter is done
	 */
	Subscription subscribe(String key) {
		this.grants.listen();
		Signal signal = this.signals.compute(key, (joined, current) -> {
			Signal used = (current != null) ? current : new Signal();
			used.users++;
			return used;
		});
		return new Subscription(key, signal, this.grants.polls());
	}

	/**
	 * Wake this JVM's waiters for a lock.
	 * @param key the lock key
	 */
	void fire(String key) {
		Signal signal = this.signals.get(key);
		if (signal != null) {
			signal.fire(null);
		}
	}

	/**
	 * Wake this JVM's waiters for the lock a message names, keeping the grant it tells
	 * of, if any, for its waiter.
	 */
	private void hear(String message) {
		int end = message.indexOf(LockName.RESERVED);
		Signal signal = this.signals.get((end < 0) ? message : message.substring(0, end));
		if (signal != null) {
			signal.fire((end < 0) ? null : HeardGrant.parse(message.substring(end + 1)));
		}
	}

	/**
	 * Close the grant channel's pub/sub connection.
	 */
	@Override
	public void close() {
		this.grants.close();
	}

	private void leave(String key) {
		this.signals.computeIfPresent(key, (left, signal) -> (--signal.users == 0) ? null : signal);
	}

	/**
	 * One waiter's subscription to the signals of a lock.
	 */
	final class Subscription implements AutoCloseable {

		private final String key;

		private final Signal signal;

		private boolean closed;

		/** How long the waits last at most when polling; {@code null} when subscribed. */
		private final @Nullable BackOffExecution polls;

		private Subscription(String key, Signal signal, @Nullable BackOffExecution polls) {
			this.key = key;
			this.signal = signal;
			this.polls = polls;
		}

		/**
		 * Return how many signals arrived so far, to pass to {@link #await}.
		 */
		long generation() {
			return this.signal.generation;
		}

		/**
		 * Return the fencing token of the last grant heard for this lock if it was to the
		 * given waiter after the given attempt of it, otherwise 0.
		 * @param token the token the waiter waits under
		 * @param attempt the number of its last attempt, which queued it
		 */
		long granted(String token, long attempt) {
			HeardGrant grant = this.signal.grant;
			return (grant != null && grant.token().equals(token) && grant.attempt() == attempt) ? grant.fencingToken()
					: 0;
		}

		/**
		 * Sleep until a signal arrives after the given generation, or the time is up;
		 * when polling, at most until the next re-check is due.
		 */
		void await(long generation, long nanos) throws InterruptedException {
			long wait = (this.polls != null) ? Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(this.polls.nextBackOff()))
					: nanos;
			this.signal.await(generation, wait);
		}

		@Override
		public void close() {
			if (!this.closed) {
				this.closed = true;
				leave(this.key);
			}
		}

	}

	/**
	 * Counts the signals of one lock and wakes the threads waiting for one.
	 */
	private static final class Signal {

		private final Lock lock = new ReentrantLock();

		private final Condition fired = this.lock.newCondition();

		/** Subscribers; changed only while the enclosing map computes its key. */
		private int users;

		/** The signals so far; changed under the lock, read without it. */
		private volatile long generation;

		/** The last grant heard for the lock, if any, set before its signal counts. */
		private volatile @Nullable HeardGrant grant;

		void fire(@Nullable HeardGrant heard) {
			this.lock.lock();
			try {
				if (heard != null) {
					this.grant = heard;
				}
				this.generation++;
				this.fired.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

		void await(long seen, long nanos) throws InterruptedException {
			this.lock.lock();
			try {
				long remaining = nanos;
				while (this.generation == seen && remaining > 0) {
					remaining = this.fired.awaitNanos(remaining);
				}
			}
			finally {
				this.lock.unlock();
			}
		}

	}

	/**
	 * A grant a message told of.
	 *
	 * @param token the token of the waiter granted the lock
	 * @param attempt the number of the waiter's attempt that queued it
	 * @param fencingToken the fencing token issued with the grant
	 */
	private record HeardGrant(String token, long attempt, long fencingToken) {

		/**
		 * Read a grant from the text after the lock key of its message.
		 * @return the grant, or {@code null} if the text is not one (then the message
		 * only wakes)
		 */
		static @Nullable HeardGrant parse(String text) {
			String[] parts = text.split(" ");
			try {
				return (parts.length == 3)
						? new HeardGrant(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2])) : null;
			}
			catch (NumberFormatException ex) {
				return null;
			}
		}

	}

}
