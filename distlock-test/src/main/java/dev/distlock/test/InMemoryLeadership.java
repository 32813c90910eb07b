package dev.distlock.test;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.Leadership;
import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The leadership of one name on an {@link InMemoryLockRegistry}: a candidate thread waits
 * for the name's lock, leads while it holds it (a term), and waits again when the term
 * ends, because the leader yielded, its lease ran out or it was made lost. A term's grant
 * and revocation are published on the registry's event thread, the revocation before the
 * term's lock is released, so that no two instances' listeners are told they lead at
 * once.
 */
final class InMemoryLeadership implements Leadership {

	private final InMemoryLockRegistry registry;

	private final LockName name;

	private final Object monitor = new Object();

	/** The candidate thread while started; guarded by the monitor. */
	private @Nullable Thread candidate;

	/**
	 * The last candidate thread stopped, which may still be ending its term; guarded by
	 * the monitor.
	 */
	private @Nullable Thread lastStopped;

	private volatile @Nullable Term term;

	InMemoryLeadership(InMemoryLockRegistry registry, LockName name) {
		this.registry = registry;
		this.name = name;
	}

	@Override
	public String name() {
		return this.name.value();
	}

	/**
	 * Start campaigning, and return once the first election is decided: this instance
	 * leads, or waits behind the leader. A candidate stopped before ends its term first,
	 * so that terms never overlap; started by an event listener while that candidate
	 * still ends its term, it returns at once, since the candidate may wait for the event
	 * to be delivered.
	 */
	@Override
	public void start() {
		CountDownLatch decided = new CountDownLatch(1);
		boolean afterStopped;
		synchronized (this.monitor) {
			if (this.candidate != null) {
				return;
			}
			Thread previous = this.lastStopped;
			afterStopped = previous != null && previous.isAlive();
			Thread thread = new Thread(() -> campaign(previous, decided), "distlock-leadership-" + this.name);
			thread.setDaemon(true);
			this.candidate = thread;
			thread.start();
		}
		if (!afterStopped || !InMemoryLockRegistry.isDelivering()) {
			awaitUninterruptibly(decided::await);
		}
	}

	/**
	 * Stop campaigning: end the current term, publish its revocation and release its
	 * lock, and return once that is done (unless called while an event is delivered).
	 */
	@Override
	public void stop() {
		Thread stopped;
		synchronized (this.monitor) {
			stopped = this.candidate;
			this.candidate = null;
			if (stopped != null) {
				this.lastStopped = stopped;
			}
		}
		if (stopped == null) {
			return;
		}
		stopped.interrupt();
		if (!InMemoryLockRegistry.isDelivering() && stopped != Thread.currentThread()) {
			try {
				stopped.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isLeader() {
		Term current = this.term;
		return current != null && current.isValid();
	}

	@Override
	public void yieldLeadership() {
		Term current = this.term;
		if (current != null) {
			current.end("the leader yielded");
		}
	}

	@Override
	public OptionalLong fencingToken() {
		Term current = this.term;
		return (current != null && current.isValid()) ? OptionalLong.of(current.hold.fencingToken)
				: OptionalLong.empty();
	}

	private void campaign(@Nullable Thread previous, CountDownLatch decided) {
		try {
			if (previous != null) {
				// One term at a time: the candidate stopped before ends its term first,
				// even if this one is stopped meanwhile, since a candidate started after
				// this one waits for this one only
				awaitUninterruptibly(previous::join);
			}
			while (isCandidate()) {
				InMemoryHold hold = this.registry.take(this.name, HoldKind.EXCLUSIVE, 0,
						Duration.ofNanos(Long.MAX_VALUE), LeaseOptions.WATCHDOG, decided::countDown);
				if (hold == null) {
					continue;
				}
				serve(new Term(hold), decided);
			}
		}
		catch (InterruptedException ex) {
			// Stopped while waiting for the lock
		}
		finally {
			decided.countDown();
		}
	}

	/**
	 * Serve one term: publish its grant (the first election is decided once it is
	 * published, so that a listener may start a leadership), wait for its end, publish
	 * its revocation, and release its lock.
	 */
	private void serve(Term current, CountDownLatch decided) {
		this.term = current;
		Future<?> granted = this.registry.publish(this.name, new LeadershipGrantedEvent(this.name.value(),
				this.name.value(), current.hold.fencingToken, current.lease));
		decided.countDown();
		this.registry.awaitDelivery(granted);
		String reason = isCandidate() ? awaitEnd(current) : "the leadership was stopped";
		current.end(reason);
		this.registry.awaitDelivery(this.registry.publish(this.name,
				new LeadershipRevokedEvent(this.name.value(), this.name.value(), current.hold.fencingToken, reason)));
		this.term = null;
		try {
			this.registry.release(current.hold);
		}
		catch (LockLostException ex) {
			// Reported by the registry when it was found lost
		}
	}

	private String awaitEnd(Term current) {
		try {
			return current.ended.get();
		}
		catch (InterruptedException ex) {
			return "the leadership was stopped";
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Wait to the end, keeping an interrupt for afterwards.
	 */
	private static void awaitUninterruptibly(Waiting waiting) {
		boolean interrupted = false;
		while (true) {
			try {
				waiting.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private boolean isCandidate() {
		synchronized (this.monitor) {
			return this.candidate == Thread.currentThread();
		}
	}

	/**
	 * A wait that an interrupt ends early.
	 */
	@FunctionalInterface
	private interface Waiting {

		void await() throws InterruptedException;

	}

	/**
	 * One term of leadership: the hold of the name's lock, its lease as the grant gives
	 * it (releasing it ends the term), and the reason it ended.
	 */
	private final class Term {

		final InMemoryHold hold;

		final LockLease lease;

		final CompletableFuture<String> ended = new CompletableFuture<>();

		Term(InMemoryHold hold) {
			this.hold = hold;
			this.lease = new InMemoryLease(hold, () -> end("the term's lease was released"));
			hold.onLoss((ex) -> end("its lock was lost: " + hold.lossReason()));
		}

		boolean isValid() {
			return !this.ended.isDone() && this.hold.isValid();
		}

		void end(String reason) {
			this.ended.complete(reason);
		}

	}

}
