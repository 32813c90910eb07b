package dev.distlock.check;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.fencing.RedisFence;
import dev.distlock.fencing.StaleFencingTokenException;

/**
 * What a worker does while it holds locks: for each hold, look at its validity, increment
 * the fenced counter and the plain counter of its name with a short stall in between, and
 * look at its validity again; one {@code OP} line records it all. A reader, which shares
 * its lock, reads the fenced counter instead, stalls, reads it again and records what it
 * saw in a {@code READ} line: no writer may change it meanwhile (the plain counter, which
 * a writer that lost its lock still writes, proves nothing here).
 * <p>
 * After the plain counter, a holder writes its operation's id through the project's own
 * {@link RedisFence} (kept in the same store, under {@link #FENCE_PREFIX}) with its
 * fencing token, and one {@code FENCE} line records whether the fence accepted it: a
 * fence that accepts a token lower than one it accepted before shows there.
 */
final class CriticalSection {

	/** The key prefix of the fence's keys in the store. */
	static final String FENCE_PREFIX = "check:fence:";

	private final FencedRegister register;

	private final RedisFence fence;

	private final History history;

	CriticalSection(FencedRegister register, RedisFence fence, History history) {
		this.register = register;
		this.fence = fence;
		this.history = history;
	}

	/**
	 * Work under the given holds.
	 * @param holds the holds, one per lock name
	 * @return how many holds were worked under
	 */
	long run(List<RecordedHold> holds) {
		for (RecordedHold hold : holds) {
			runUnder(hold);
		}
		return holds.size();
	}

	/**
	 * Read under a read hold.
	 * @param hold the read hold
	 */
	void read(RecordedHold hold) {
		long start = History.now();
		boolean validBefore = hold.checkValid();
		String first = "ERROR";
		String last = "ERROR";
		try {
			first = Long.toString(this.register.readShared(hold.name(), hold.token(), hold.id()));
			stall();
			last = Long.toString(this.register.readShared(hold.name(), hold.token(), hold.id()));
		}
		catch (RuntimeException ex) {
			// Interrupted or the store unreachable: nothing to compare
		}
		boolean validAfter = hold.checkValid();
		this.history.record("READ", "hold", hold.id(), "name", hold.name(), "first", first, "last", last, "start",
				start, "end", History.now(), "validBefore", validBefore, "validAfter", validAfter);
	}

	private void runUnder(RecordedHold hold) {
		String op = hold.nextOperation();
		long start = History.now();
		boolean validBefore = hold.checkValid();
		String fenced;
		try {
			fenced = this.register.incrementFenced(hold.name(), hold.token(), hold.id(), op);
		}
		catch (RuntimeException ex) {
			fenced = "ERROR";
		}
		String plain = "ERROR";
		String predecessor = "unknown";
		try {
			String[] read = this.register.readPlain(hold.name());
			predecessor = read[1];
			stall();
			this.register.writePlain(hold.name(), Long.parseLong(read[0]) + 1, op);
			plain = "OK";
		}
		catch (RuntimeException ex) {
			// Interrupted or Redis unreachable: the write may or may not have happened
		}
		writeFenced(hold, op);
		boolean validAfter = hold.checkValid();
		this.history.record("OP", "op", op, "hold", hold.id(), "name", hold.name(), "token", hold.token(), "fenced",
				fenced, "plain", plain, "pred", predecessor, "start", start, "end", History.now(), "validBefore",
				validBefore, "validAfter", validAfter);
	}

	/**
	 * Write the operation's id through the fence, and record whether the fence accepted
	 * it: {@code ACCEPTED}, {@code REFUSED} or {@code ERROR} (interrupted or the store
	 * unreachable: the write may or may not have happened).
	 */
	private void writeFenced(RecordedHold hold, String op) {
		long start = History.now();
		String outcome = "ACCEPTED";
		try {
			this.fence.write(hold.name(), hold.token(), FENCE_PREFIX + "value:" + hold.name(), op);
		}
		catch (StaleFencingTokenException ex) {
			outcome = "REFUSED";
		}
		catch (RuntimeException ex) {
			outcome = "ERROR";
		}
		this.history.record("FENCE", "op", op, "name", hold.name(), "token", hold.token(), "outcome", outcome, "start",
				start, "end", History.now());
	}

	/**
	 * Stall between read and write, mostly briefly, sometimes longer than a lease.
	 */
	private static void stall() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long millis = (random.nextInt(20) == 0) ? 200 + random.nextInt(1500) : random.nextInt(10);
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
	}

}
