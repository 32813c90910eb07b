package dev.distlock.redis;

import java.util.Arrays;
import java.util.List;

import dev.distlock.redis.HoldRenewals.Renewal;
import dev.distlock.redis.renewal.LeaseTerms;

/**
 * Builds the keys and arguments of the lock scripts from a hold's token, terms and place
 * in the wait queue: the one place that knows in which order each script reads them.
 */
final class ScriptArgs {

	private final long retentionMillis;

	/**
	 * Create the builder.
	 * @param retentionMillis how long a fencing key outlives the key of the last hold
	 */
	ScriptArgs(long retentionMillis) {
		this.retentionMillis = retentionMillis;
	}

	/**
	 * Return the arguments that the acquire script and the attempt script of every shared
	 * hold start with: the caller's token, how long its key or entry lives (the lease
	 * plus the lock delay), how long the fencing key lives, {@code 1} to wait in the
	 * queue or {@code 0} to leave it, how long a queue entry lives, the caller's grant
	 * terms and the channel of its process.
	 */
	String[] acquire(String token, LeaseTerms terms, Queueing queueing) {
		return new String[] { token, Long.toString(terms.keyMillis()), fenceMillis(terms), flag(queueing.waits()),
				Long.toString(queueing.entryMillis()), grantTerms(terms, queueing), queueing.channel() };
	}

	/**
	 * Return the terms of a grant to the caller, as its queue entry keeps them: how long
	 * the grant keeps the lock key for it (its claim time plus its lock delay), how long
	 * the fencing key lives after the grant, and the number of the attempt.
	 */
	private String grantTerms(LeaseTerms terms, Queueing queueing) {
		LeaseTerms claim = new LeaseTerms(queueing.claimMillis(), terms.delayMillis());
		return claim.keyMillis() + " " + fenceMillis(claim) + " " + queueing.attempt();
	}

	/**
	 * Return the raise-fence script's arguments.
	 */
	String[] raiseFence(String token, long fencingToken, LeaseTerms terms) {
		return new String[] { token, Long.toString(fencingToken), fenceMillis(terms) };
	}

	/**
	 * Return the transfer script's arguments.
	 */
	String[] transfer(LeaseTerms terms, String token, String nextToken, LeaseTerms nextTerms, String waiterToken) {
		return new String[] { token, nextToken, Long.toString(nextTerms.keyMillis()), fenceMillis(nextTerms),
				waiterToken, Long.toString(terms.delayMillis()) };
	}

	/**
	 * Return the release script's arguments.
	 * @param buryMillis how long a token given back stays marked so; 0 for a release
	 */
	static String[] release(String token, long keepMillis, long delayMillis, boolean leaseOver, long buryMillis) {
		return new String[] { token, Long.toString(keepMillis), Long.toString(delayMillis), flag(leaseOver),
				Long.toString(buryMillis) };
	}

	/**
	 * Return the arguments of the release script of a shared hold's kind.
	 * @param buryMillis how long a token given back stays marked so; 0 for a release
	 */
	static String[] releaseShare(String token, long delayMillis, boolean leaseOver, long buryMillis) {
		return new String[] { token, Long.toString(delayMillis), flag(leaseOver), Long.toString(buryMillis) };
	}

	/**
	 * Return the renew script's keys: the key (or set of holders) and fencing key of each
	 * lock of a batch.
	 */
	static String[] renewKeys(Renewal batch) {
		List<LockId> ids = batch.ids();
		String[] keys = new String[2 * ids.size()];
		for (int i = 0; i < ids.size(); i++) {
			keys[2 * i] = LockKeys.heldKey(ids.get(i), batch.kind());
			keys[2 * i + 1] = ids.get(i).fenceKey;
		}
		return keys;
	}

	/**
	 * Return the renew script's arguments: the terms of a batch, then each token held.
	 */
	String[] renewArgs(Renewal batch) {
		LeaseTerms terms = batch.terms();
		return concat(new String[] { Long.toString(terms.keyMillis()), fenceMillis(terms),
				Long.toString(terms.delayMillis()) }, batch.tokens().toArray(String[]::new));
	}

	/**
	 * Return a script's arguments followed by more: those of a shared hold's own attempt,
	 * or those that a script on a node of a quorum reads after the others.
	 */
	static String[] concat(String[] args, String... more) {
		String[] all = Arrays.copyOf(args, args.length + more.length);
		System.arraycopy(more, 0, all, args.length, more.length);
		return all;
	}

	/**
	 * Return how long a fencing key lives after a hold with the given terms was granted
	 * or renewed: its key's life, then the fencing retention.
	 */
	private String fenceMillis(LeaseTerms terms) {
		return Long.toString(terms.keyMillis() + this.retentionMillis);
	}

	private static String flag(boolean set) {
		return set ? "1" : "0";
	}

}
