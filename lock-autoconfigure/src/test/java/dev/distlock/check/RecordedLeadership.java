package dev.distlock.check;

import java.util.OptionalLong;

import dev.distlock.Leadership;

/**
 * A {@link Leadership} that records its candidacy in a {@link History}: a
 * {@code CANDIDATE} line when it started campaigning, a {@code WITHDRAW} line when it
 * stops, and a {@code LEADER} line with the term's fencing token each time it said it was
 * leader. The terms themselves are recorded from the registry's events ({@code GRANTED},
 * {@code REVOKED}).
 */
final class RecordedLeadership implements Leadership {

	private final Leadership delegate;

	private final History history;

	private volatile boolean campaigning;

	RecordedLeadership(Leadership delegate, History history) {
		this.delegate = delegate;
		this.history = history;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public synchronized void start() {
		if (!this.campaigning) {
			this.delegate.start();
			this.campaigning = true;
			this.history.record("CANDIDATE", "name", name(), "start", History.now());
		}
	}

	@Override
	public synchronized void stop() {
		if (this.campaigning) {
			this.campaigning = false;
			this.history.record("WITHDRAW", "name", name(), "at", History.now());
		}
		this.delegate.stop();
	}

	@Override
	public boolean isLeader() {
		return fencingToken().isPresent();
	}

	@Override
	public void yieldLeadership() {
		this.delegate.yieldLeadership();
	}

	@Override
	public OptionalLong fencingToken() {
		long before = History.now();
		OptionalLong token = this.delegate.fencingToken();
		if (token.isPresent()) {
			said(token.getAsLong(), before);
		}
		return token;
	}

	/**
	 * Record that it said it was leader, in a look at the engine's leadership made
	 * elsewhere.
	 * @param token the fencing token of the term it said it led in
	 * @param before the time taken just before the look
	 */
	void said(long token, long before) {
		this.history.record("LEADER", "name", name(), "token", token, "before", before);
	}

	/**
	 * Return the engine's leadership, whose calls are not recorded.
	 * @return the leadership this one records
	 */
	Leadership delegate() {
		return this.delegate;
	}

	/**
	 * Return whether it campaigns without leading: a standby, waiting for the lock.
	 * @return whether it is a standby
	 */
	boolean isStandby() {
		return this.campaigning && this.delegate.fencingToken().isEmpty();
	}

}
