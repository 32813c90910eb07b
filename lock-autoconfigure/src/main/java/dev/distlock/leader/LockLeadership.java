package dev.distlock.leader;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.DistributedLockException;
import dev.distlock.Leadership;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * A {@link Leadership} on any {@link LockRegistry}, through its public API only: a term
 * is one watchdog {@link LockLease} of the lock of the leadership's name. One daemon
 * thread, the candidate, does everything that waits or calls out: it waits for the lock
 * without end (in the lock's fair queue), holds it while leader, publishes the events,
 * releases the lock when the term ends (once the revocation was delivered) and waits for
 * it again. Other threads only end a term and wake the candidate: a loss action of the
 * lease that found the lock lost, a caller that yields or stops (or releases the term's
 * lease), a caller of {@link #isLeader()} that found the lease run out. The registry's
 * event thread delivers the events in order, and runs a term's loss actions just before
 * its revocation; a listener that stops, yields or asks this leadership is answered
 * without waiting for the candidate, which waits for it.
 *
 * <p>
 * While leader the candidate sleeps until the lease's
 * {@linkplain LockLease#remainingLease() time left} is over, and ends the term then if no
 * renewal moved it on: a term is revoked at the latest when its lease may have run out,
 * even when Redis stalls and no renewal answers. Acquisitions that the registry fails are
 * tried again after a back-off from {@value #MIN_BACKOFF_MILLIS} ms, doubling up to
 * {@value #MAX_BACKOFF_MILLIS} ms.
 *
 * @since 0.1.0
 */
public final class LockLeadership implements Leadership {

	/**
	 * The back-off after the first acquisition that the registry failed, in milliseconds.
	 */
	static final long MIN_BACKOFF_MILLIS = 100;

	/**
	 * The longest back-off between acquisitions that the registry failed, in
	 * milliseconds.
	 */
	static final long MAX_BACKOFF_MILLIS = 2000;

	private static final Log logger = LogFactory.getLog(LockLeadership.class);

	private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

	private final LockRegistry registry;

	private final LockName name;

	private final TermReports reports;

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

	/**
	 * Create a leadership, not started.
	 * @param registry the registry whose lock of the given name the leadership holds
	 * while leader, with the registry's watchdog lease
	 * @param name the leadership's name, which is its lock's name
	 * @param key the store's key of that lock, for the events
	 * @param leaseTime the registry's watchdog lease, for the reason of a term whose
	 * lease ran out
	 * @param events how the registry tells of the terms
	 */
	public LockLeadership(LockRegistry registry, LockName name, String key, Duration leaseTime,
			LeadershipEvents events) {
		this.registry = registry;
		this.name = name;
		this.reports = new TermReports(name, key, leaseTime, events);
	}

	@Override
	public String name() {
		return this.name.value();
	}

	@Override
	public void start() {
		this.lock.lock();
		try {
			this.running = true;
			Thread thread = this.candidate;
			if (thread == null) {
				thread = new Thread(this::campaign, "distlock-leadership-" + name());
				thread.setDaemon(true);
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
		long nanos = timeout.toNanos();
		this.lock.lock();
		try {
			while (this.running && this.candidate != null && this.election != Election.DECIDED && nanos > 0) {
				nanos = this.changed.awaitNanos(nanos);
			}
		}
		finally {
			this.lock.unlock();
		}
		return isLeader();
	}

	@Override
	public OptionalLong fencingToken() {
		LeadershipTerm current = leading();
		return (current != null) ? OptionalLong.of(current.fencingToken()) : OptionalLong.empty();
	}

	/**
	 * Return whether the leadership campaigns: started and not stopped.
	 * @return whether it is running
	 */
	public boolean isRunning() {
		this.lock.lock();
		try {
			return this.running;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Return the given leaderships that campaign, by name, for a registry's
	 * {@link dev.distlock.LockIntrospector#leaderships()}.
	 * @param leaderships a registry's leaderships
	 * @return those started and not stopped, by name
	 */
	public static List<Leadership> running(Collection<LockLeadership> leaderships) {
		return leaderships.stream()
			.filter(LockLeadership::isRunning)
			.sorted(Comparator.comparing(Leadership::name))
			.map(Leadership.class::cast)
			.toList();
	}

	@Override
	public String toString() {
		return "Leadership '" + name() + "'";
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
			if (current.remainingLease().isZero()) {
				end(current, this.reports.leaseRanOut());
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
			LockLease lease = awaitLock(true);
			while (lease != null) {
				serve(lease);
				lease = awaitLock(false);
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
	 * Wait for the lock without end, trying again after a back-off while the registry
	 * fails.
	 * @param firstElection whether to try once first, again after each back-off until the
	 * registry answers, and record how the first election went: decided when an attempt
	 * that the registry answered did not get the lock (a term that begins records it),
	 * failing while the registry fails
	 * @return the lease, or {@code null} once stopped, when the candidate ends
	 */
	private @Nullable LockLease awaitLock(boolean firstElection) {
		BackOffExecution backOff = null;
		boolean once = firstElection;
		while (beginAcquiring()) {
			Optional<LockLease> lease = Optional.empty();
			DistributedLockException failure = null;
			try {
				lease = this.registry.tryAcquire(this.name, once ? Duration.ZERO : FOREVER);
			}
			catch (DistributedLockException ex) {
				// Stopped when interrupted: seen through running
				failure = Thread.currentThread().isInterrupted() ? null : ex;
			}
			finally {
				endAcquiring();
			}
			if (lease.isPresent()) {
				return lease.get();
			}
			if (once) {
				recordElection((failure != null) ? Election.FAILING : Election.DECIDED);
				once = (failure != null);
			}
			if (failure != null && isRunning()) {
				if (backOff == null) {
					logger.warn(this + " cannot campaign while Redis fails; trying again: " + failure.getMessage());
					backOff = backOff().start();
				}
				sleepUnlessStopped(backOff.nextBackOff());
			}
		}
		return null;
	}

	private static ExponentialBackOff backOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(MIN_BACKOFF_MILLIS, 2);
		backOff.setMaxInterval(MAX_BACKOFF_MILLIS);
		return backOff;
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
	 * release its lock. A lease acquired after a stop is released at once.
	 */
	private void serve(LockLease lease) {
		LeadershipTerm current = new LeadershipTerm(lease, this);
		if (!begin(current)) {
			releaseQuietly(lease);
			return;
		}
		try {
			lease.onLoss((lost) -> endFromAnotherThread(current, lost.getMessage()));
			this.reports.granted(current);
			this.reports.revoked(current, awaitEnd(current));
		}
		finally {
			markRevoked(current);
			releaseQuietly(lease);
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
	 * it on.
	 * @return why it ended
	 */
	private String awaitEnd(LeadershipTerm current) {
		this.lock.lock();
		try {
			String reason = current.endReason;
			while (reason == null) {
				long left = current.remainingLease().toNanos();
				if (left <= 0) {
					end(current, this.reports.leaseRanOut());
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
	private void markRevoked(LeadershipTerm current) {
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
	 * Release a term's lock. A lock found lost was reported by the registry, and one that
	 * the registry could not release expires with its lease.
	 */
	private void releaseQuietly(LockLease lease) {
		try {
			lease.release();
		}
		catch (LockLostException ex) {
			// Reported with a LockLostEvent
		}
		catch (DistributedLockException ex) {
			logger.warn(this + " could not release its lock, which expires with its lease: " + ex.getMessage());
		}
	}

}
