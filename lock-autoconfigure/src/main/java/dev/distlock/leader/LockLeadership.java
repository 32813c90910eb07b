package dev.distlock.leader;

import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

import dev.distlock.Leadership;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;

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
 * tried again after a back-off from 100 ms, doubling up to 2 s.
 *
 * <p>
 * This class is the facade of parts that share one lock and its condition
 * ({@code LeadershipMonitor}): {@code Candidate} is what the candidate thread runs,
 * {@code Candidacy} what the other threads start, stop and wait for, and
 * {@code CurrentTerm} the current term and how it ends.
 *
 * @since 0.1.0
 */
public final class LockLeadership implements Leadership {

	private final LockName name;

	private final LeadershipMonitor monitor = new LeadershipMonitor();

	private final Candidacy candidacy;

	private final CurrentTerm terms;

	private final Candidate candidate;

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
		this.name = name;
		TermReports reports = new TermReports(name, key, leaseTime, events);
		this.candidacy = new Candidacy(this.monitor, events);
		this.terms = new CurrentTerm(this.monitor, this.candidacy, reports);
		this.candidate = new Candidate(registry, name, this.candidacy, this.terms, reports);
	}

	@Override
	public String name() {
		return this.name.value();
	}

	@Override
	public void start() {
		this.candidacy.start(this.candidate::campaign, "distlock-leadership-" + name());
	}

	/**
	 * Stop campaigning: end the current term and stop the candidate, both under the
	 * monitor so that the candidate sees them at once, and return once the candidate
	 * ended, having released the term's lock, unless started again first or called by the
	 * candidate or an event listener.
	 */
	@Override
	public void stop() {
		this.monitor.run(() -> {
			this.terms.endCurrent("it stopped");
			this.candidacy.stop();
		});
	}

	@Override
	public boolean isLeader() {
		return this.terms.leading() != null;
	}

	@Override
	public void yieldLeadership() {
		LeadershipTerm current = this.terms.leading();
		if (current != null) {
			this.terms.yieldTerm(current);
		}
	}

	@Override
	public boolean awaitDecision(Duration timeout) throws InterruptedException {
		this.candidacy.awaitDecision(timeout.toNanos());
		return isLeader();
	}

	@Override
	public OptionalLong fencingToken() {
		LeadershipTerm current = this.terms.leading();
		return (current != null) ? OptionalLong.of(current.fencingToken()) : OptionalLong.empty();
	}

	/**
	 * Return whether the leadership campaigns: started and not stopped.
	 * @return whether it is running
	 */
	public boolean isRunning() {
		return this.candidacy.isRunning();
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

}
