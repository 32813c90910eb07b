package dev.distlock.redis;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.DistributedLockException;
import dev.distlock.LeaseOptions;
import dev.distlock.Leadership;
import dev.distlock.LockLostException;
import dev.distlock.thread.DaemonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Leadership} of a {@link RedisLockRegistry}. One daemon thread, the candidate,
 * does everything that waits or calls out: it waits for the lock without end (in the
 * lock's queue in Redis), holds it in watchdog mode while leader, publishes the events,
 * releases the lock when the term ends (once the revocation was delivered) and waits for
 * it again. Other threads only end a term and wake the candidate: the watchdog that found
 * the lock lost, a caller that yields or stops (or releases the term's lease), a caller
 * of {@link #isLeader()} that found the lease run out. The registry's event thread
 * delivers the events in order, and runs a term's loss actions just before its
 * revocation; a listener that stops, yields or asks this leadership is answered without
 * waiting for the candidate, which waits for it.
 *
 * <p>
 * While leader the candidate sleeps until the hold's validity ends (the send time of the
 * last renewal confirmed plus the lease), and ends the term then if no renewal moved it:
 * a term is revoked at the latest when its lease may have run out in Redis, even when
 * Redis stalls and no renewal answers. Acquisitions that Redis fails are tried again
 * after a back-off from {@value #MIN_BACKOFF_MILLIS} ms, doubling up to
 * {@value #MAX_BACKOFF_MILLIS} ms.
 */
final class RedisLeadership implements Leadership {

	/** The back-off after the first acquisition that Redis failed, in milliseconds. */
	static final long MIN_BACKOFF_MILLIS = 100;

	/** The longest back-off between acquisitions that Redis failed, in milliseconds. */
	static final long MAX_BACKOFF_MILLIS = 2000;

	private static final Log logger = LogFactory.getLog(RedisLeadership.class);

	private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

	private final RedisLockRegistry registry;

	private final LockId id;

	private final LeadershipReports reports;

	private final ReentrantLock lock = new ReentrantLock();

	/**
	 * Signalled when a term ends or is over, when stopped and when the candidate ends.
	 */
	private final Condition changed = this.lock.newCondition();

	/** Whether to campaign; guarded by {@link #lock}. */
	private boolean running;

	/** The thread that campaigns, or {@code null}; guarded by {@link #lock}. */
	private @Nullable Thread candidate;

	/** How far the candidate's first election got; guarded by {@link #lock}. */
	private Election election = Election.TRYING;

	/**
	 * Whether the candidate waits for the lock, which an interrupt ends; guarded by
	 * {@link #lock}.
	 */
	private boolean acquiring;

	/** The current term, from its grant until its lock was released. */
	private volatile @Nullable LeadershipTerm term;

	RedisLeadership(RedisLockRegistry registry, LockId id, LeadershipReports reports) {
		this.registry = registry;
		this.id = id;
		this.reports = reports;
	}

	@Override
	public String name() {
		return this.id.name.value();
	}

	@Override
	public void start() {
		this.lock.lock();
		try {
			this.running = true;
			Thread thread = this.candidate;
			if (thread == null) {
				thread = DaemonThreads.named("distlock-leadership-" + name()).newThread(this::campaign);
				this.candidate = thread;
				this.election = Election.TRYING;
				thread.start();
			}
			while (this.running && this.candidate == thread && this.election == Election.TRYING) {
				this.changed.awaitUninterruptibly();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void stop() {
		this.lock.lock();
		try {
			this.running = false;
			LeadershipTerm current = this.term;
			if (current != null) {
				end(current, "it stopped");
			}
			Thread thread = this.candidate;
			if (thread != null && this.acquiring) {
				thread.interrupt();
			}
			this.changed.signalAll();
			if (mayWait()) {
				while (thread != null && this.candidate == thread && !this.running) {
					this.changed.awaitUninterruptibly();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean isLeader() {
		return leading() != null;
	}

	@Override
	public void yieldLeadership() {
		LeadershipTerm current = leading();
		if (current != null) {
			yieldTerm(current);
		}
	}

	@Override
	public boolean awaitDecision(Duration timeout) throws InterruptedException {
		Deadline deadline = Deadline.after(timeout);
		this.lock.lock();
		try {
			while (this.running && this.candidate != null && this.election != Election.DECIDED && !deadline.isPast()) {
				this.changed.awaitNanos(deadline.remainingNanos());
			}
		}
		finally {
			this.lock.unlock();
		}
		return isLeader();
	}

	/**
	 * End the given term, as {@link #yieldLeadership()} does, unless it ended already,
	 * and return once its lock was released (at once when called by an event listener).
	 */
	void yieldTerm(LeadershipTerm current) {
		this.lock.lock();
		try {
			end(current, "it yielded");
			if (mayWait()) {
				while (!current.lockReleased) {
					this.changed.awaitUninterruptibly();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public OptionalLong fencingToken() {
		LeadershipTerm current = leading();
		return (current != null) ? OptionalLong.of(current.hold.fencingToken) : OptionalLong.empty();
	}

	/**
	 * Return whether the leadership campaigns: started and not stopped.
	 */
	boolean isRunning() {
		this.lock.lock();
		try {
			return this.running;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public String toString() {
		return "Leadership '" + name() + "'";
	}

	/**
	 * Return whether the calling thread may wait for the candidate: not the candidate
	 * itself (an observer of the registry is told of a term on it) and not the thread
	 * that delivers the events the candidate waits for (a listener). Guarded by
	 * {@link #lock}.
	 */
	private boolean mayWait() {
		return Thread.currentThread() != this.candidate && !this.reports.calledByListener();
	}

	/**
	 * Return the current term while it is valid. A term found no longer valid is ended
	 * (when its lease ran out; a lost lock ends it through its loss action) and its
	 * revocation awaited, unless called by the candidate or by an event listener, on the
	 * thread that delivers the revocation after it: so no caller learns that the term is
	 * over before the revocation was delivered.
	 */
	private @Nullable LeadershipTerm leading() {
		LeadershipTerm current = this.term;
		if (current == null) {
			return null;
		}
		if (current.isValid()) {
			return current;
		}
		this.lock.lock();
		try {
			if (!current.hold.hasTimeLeft()) {
				end(current, leaseRanOut(current));
			}
			if (mayWait()) {
				while (!current.revoked) {
					this.changed.awaitUninterruptibly();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		return null;
	}

	/**
	 * Campaign until stopped: wait for the lock, serve a term, and again. The first
	 * attempt tries once, so that the first election is decided at once.
	 */
	private void campaign() {
		try {
			RedisHold hold = awaitLock(true);
			while (hold != null) {
				serve(hold);
				hold = awaitLock(false);
			}
		}
		catch (RuntimeException | Error ex) {
			logger.error(this + " stopped campaigning", ex);
			this.lock.lock();
			try {
				this.candidate = null;
				this.changed.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/**
	 * Wait for the lock without end, trying again after a back-off while Redis fails.
	 * @param firstElection whether to try once first, again after each back-off until
	 * Redis answers, and record how the first election went: decided when an attempt that
	 * Redis answered did not get the lock (a term that begins records it), failing while
	 * Redis fails
	 * @return the hold, or {@code null} once stopped, when the candidate ends
	 */
	private @Nullable RedisHold awaitLock(boolean firstElection) {
		long backoffMillis = MIN_BACKOFF_MILLIS;
		boolean failing = false;
		boolean once = firstElection;
		while (beginAcquiring()) {
			RedisHold hold = null;
			DistributedLockException failure = null;
			try {
				hold = this.registry.acquireHold(this.id, once ? Duration.ZERO : FOREVER, LeaseOptions.WATCHDOG);
			}
			catch (InterruptedException ex) {
				// Stopped: seen through running
			}
			catch (DistributedLockException ex) {
				failure = ex;
			}
			finally {
				endAcquiring();
			}
			if (hold != null) {
				return hold;
			}
			if (once) {
				recordElection((failure != null) ? Election.FAILING : Election.DECIDED);
				once = (failure != null);
			}
			if (failure != null && isRunning()) {
				if (!failing) {
					logger.warn(this + " cannot campaign while Redis fails; trying again: " + failure.getMessage());
					failing = true;
				}
				sleepUnlessStopped(backoffMillis);
				backoffMillis = Math.min(2 * backoffMillis, MAX_BACKOFF_MILLIS);
			}
		}
		return null;
	}

	/**
	 * Record how far the first election got, and wake {@link #start()} and
	 * {@link #awaitDecision(Duration)}.
	 */
	private void recordElection(Election reached) {
		this.lock.lock();
		try {
			this.election = reached;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Mark the candidate acquiring, so that a stop interrupts it, unless stopped; the
	 * candidate ends then.
	 * @return whether to acquire
	 */
	private boolean beginAcquiring() {
		this.lock.lock();
		try {
			if (!this.running) {
				this.candidate = null;
				this.changed.signalAll();
				return false;
			}
			this.acquiring = true;
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Mark the candidate no longer acquiring, and clear an interrupt of a stop that came
	 * as the acquisition ended: it is seen through {@link #running}.
	 */
	private void endAcquiring() {
		this.lock.lock();
		try {
			this.acquiring = false;
		}
		finally {
			this.lock.unlock();
		}
		Thread.interrupted();
	}

	private void sleepUnlessStopped(long millis) {
		long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
		this.lock.lock();
		try {
			while (this.running && nanos > 0) {
				nanos = this.changed.awaitNanos(nanos);
			}
		}
		catch (InterruptedException ex) {
			// Only a stop interrupts the candidate
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Serve one term: publish its grant, wait for its end, publish its revocation, and
	 * release its lock. A hold acquired after a stop is released at once.
	 */
	private void serve(RedisHold hold) {
		LeadershipTerm current = new LeadershipTerm(hold, this);
		if (!begin(current)) {
			releaseQuietly(hold);
			return;
		}
		try {
			hold.lossActions.add((lost) -> endFromAnotherThread(current, lost.getMessage()));
			this.reports.granted(this.id, current);
			this.reports.revoked(this.id, current, awaitEnd(current));
		}
		finally {
			revoked(current);
			releaseQuietly(hold);
			released(current);
		}
	}

	/**
	 * Make the term current, unless stopped; either way the first election is decided, so
	 * that a start that came with a stop does not wait for a later term.
	 * @return whether it is current
	 */
	private boolean begin(LeadershipTerm current) {
		this.lock.lock();
		try {
			if (this.running) {
				this.term = current;
			}
			recordElection(Election.DECIDED);
			return this.running;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wait until the term ends, ending it when its lease ran out with no renewal moving
	 * its validity on.
	 * @return why it ended
	 */
	private String awaitEnd(LeadershipTerm current) {
		this.lock.lock();
		try {
			String reason = current.endReason;
			while (reason == null) {
				long left = current.hold.validUntilNanos() - System.nanoTime();
				if (left <= 0) {
					end(current, leaseRanOut(current));
				}
				else {
					awaitQuietly(left);
				}
				reason = current.endReason;
			}
			return reason;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void awaitQuietly(long nanos) {
		try {
			this.changed.awaitNanos(nanos);
		}
		catch (InterruptedException ex) {
			// Only a stop interrupts the candidate, and the term's end is seen through it
		}
	}

	private static String leaseRanOut(LeadershipTerm current) {
		return "its lease of " + current.hold.terms().leaseMillis() + " ms ran out with no renewal confirmed";
	}

	/**
	 * End a term from a thread that holds no lock of this leadership.
	 */
	private void endFromAnotherThread(LeadershipTerm current, String reason) {
		this.lock.lock();
		try {
			end(current, reason);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * End a term for the given reason, unless it ended already, and wake the candidate.
	 * Called holding {@link #lock}.
	 */
	private void end(LeadershipTerm current, String reason) {
		if (current.endReason == null) {
			current.endReason = reason;
			this.changed.signalAll();
		}
	}

	/**
	 * Record that a term's revocation was published, or that the candidate failed to
	 * publish it: either way the term is over.
	 */
	private void revoked(LeadershipTerm current) {
		this.lock.lock();
		try {
			end(current, "its leadership thread failed");
			current.revoked = true;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Record that a term's lock was released: it is no longer the current term.
	 */
	private void released(LeadershipTerm current) {
		this.lock.lock();
		try {
			current.lockReleased = true;
			if (this.term == current) {
				this.term = null;
			}
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Release a term's lock. A lock found lost was reported by the engine, and one that
	 * Redis could not release expires with its lease.
	 */
	private void releaseQuietly(RedisHold hold) {
		try {
			this.registry.release(hold);
		}
		catch (LockLostException ex) {
			// Reported with a LockLostEvent
		}
		catch (DistributedLockException ex) {
			logger.warn(this + " could not release its lock, which expires with its lease: " + ex.getMessage());
		}
	}

	/**
	 * How far the first election since a start got.
	 */
	private enum Election {

		/** Its first attempt is under way. */
		TRYING,

		/** Redis failed the attempts so far, and the candidate keeps trying. */
		FAILING,

		/** This instance leads, or another holds the lock and this one is a standby. */
		DECIDED

	}

}
