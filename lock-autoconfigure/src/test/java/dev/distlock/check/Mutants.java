package dev.distlock.check;

import java.util.List;

/**
 * The deliberate safety bugs that {@link MutationScoreTests} puts into the engine one at
 * a time, each of which the randomized fault checker should catch: at least one in every
 * Lua script that decides whether a hold is valid, and in the Java paths that decide it
 * (renewal, hand-over, the start on a grant's message, fencing, leadership), and in the
 * quorum rule of Redlock, which the checker catches on a quorum of
 * {@value #REDLOCK_NODES} nodes.
 */
final class Mutants {

	private static final String SCRIPTS = "src/main/resources/dev/distlock/redis/";

	private static final String ENGINE = "src/main/java/dev/distlock/redis/";

	private static final String LEADER = "src/main/java/dev/distlock/leader/";

	/** The nodes of the quorum the checker runs the Redlock mutants on. */
	private static final int REDLOCK_NODES = 3;

	/** Every mutant, in the order of the table the harness prints. */
	static final List<Mutant> ALL = List.of(
			new Mutant("acquire-without-nx", SCRIPTS + "acquire.lua",
					"redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
					"redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])",
					"an acquisition never takes a lock another holder has"),
			new Mutant("release-without-token", SCRIPTS + "release.lua",
					"if redis.call('get', KEYS[1]) == ARGV[1] then", "if redis.call('exists', KEYS[1]) == 1 then",
					"a release frees only the caller's own hold"),
			new Mutant("renew-foreign-token", SCRIPTS + "renew.lua", "redis.call('get', key) == ARGV[i + 3]",
					"redis.call('get', key)", "a renewal never extends a key held under another token"),
			new Mutant("renew-past-lease", SCRIPTS + "renew.lua", "redis.call('pttl', key) > delay)",
					"redis.call('pttl', key) > 0)",
					"a lease that ran out is over, even while the lock delay keeps the key"),
			new Mutant("renew-share-past-lease", SCRIPTS + "renew-shares.lua",
					"if expiry and expiry - now > delay then", "if expiry then",
					"a read share or permit whose lease ran out is over"),
			new Mutant("transfer-foreign-token", SCRIPTS + "transfer.lua",
					"if redis.call('get', KEYS[1]) ~= ARGV[1] or given_back(ARGV[2]) then",
					"if redis.call('exists', KEYS[1]) == 0 or given_back(ARGV[2]) then",
					"a local hand-over is confirmed only while Redis holds the releasing hold's token"),
			new Mutant("transfer-without-token", SCRIPTS + "transfer.lua",
					"if redis.call('get', KEYS[1]) ~= ARGV[1] or given_back(ARGV[2]) then",
					"if given_back(ARGV[2]) then", "a transfer hands over only a lock its caller still holds"),
			new Mutant("reader-beside-writer", SCRIPTS + "read-acquire.lua",
					"elseif holder ~= ARGV[8] and (holder or not first_in_line(ARGV[1], now)) then",
					"elseif holder ~= ARGV[8] and not first_in_line(ARGV[1], now) then",
					"no reader is admitted while another thread writes"),
			new Mutant("read-release-grants-early", SCRIPTS + "read-release.lua",
					"if queued and redis.call('exists', KEYS[1]) == 0 and live_holders(now_millis) == 0 then",
					"if queued and redis.call('exists', KEYS[1]) == 0 then",
					"a writer is granted the lock only once the last reader left"),
			new Mutant("permit-one-too-many", SCRIPTS + "acquire-permit.lua", "if held < permits and",
					"if held <= permits and", "a semaphore admits at most as many holders as it has permits"),
			new Mutant("release-share-past-lease", SCRIPTS + "release-share.lua", "tonumber(ARGV[2]), ARGV[3] == '1')",
					"tonumber(ARGV[2]), false)", "a permit whose lease ran out keeps its place for the lock delay"),
			new Mutant("shares-expire-early", SCRIPTS + "shared-holds.lua",
					"redis.call('zremrangebyscore', KEYS[5], '-inf', now_millis)",
					"redis.call('zremrangebyscore', KEYS[5], '-inf', now_millis + 500)",
					"a read share or permit counts until its lease ran out"),
			new Mutant("given-back-ignored", SCRIPTS + "wait-queue.lua",
					"return redis.call('zscore', KEYS[6], token) ~= false", "return false",
					"an attempt that reaches Redis after its give-back takes nothing"),
			new Mutant("token-ignores-last", SCRIPTS + "fencing-tokens.lua", "until last < issued", "until true",
					"a fencing token is greater than every token issued before"),
			new Mutant("fence-tolerates-older", "src/main/resources/dev/distlock/fencing/advance.lua",
					"if highest and token < highest then", "if highest and token < highest - 1000000 then",
					"a fence refuses every token lower than the highest it recorded, however close"),
			new Mutant("hand-over-refused-transfer", ENGINE + "HandOver.java",
					"grant != null && grant.reply() > 0 && this.commands.isAcknowledged(grant)",
					"grant != null && grant.reply() >= 0 && this.commands.isAcknowledged(grant)",
					"a waiter never holds what Redis no longer has"),
			new Mutant("hand-over-beside-own-read", ENGINE + "HandOver.java",
					"&& this.owned.find(HoldKind.READ_SHARE, hold.id.name) == null;", ";",
					"no writer holds the lock while the releasing thread still reads under it"),
			new Mutant("transfer-same-token", ENGINE + "HandOver.java", "token, grant.reply(), sentNanos,",
					"token, lock.holder.get().fencingToken, sentNanos,",
					"every hold of a lock has its own, greater fencing token"),
			new Mutant("start-on-foreign-grant", ENGINE + "ReleaseSignals.java",
					"grant.token().equals(token) && grant.attempt() == attempt", "grant.attempt() == attempt",
					"a waiter starts only on a grant of the lock to itself"),
			new Mutant("renewal-counted-from-reply", ENGINE + "renewal/LeaseWatchdog.java",
					"hold.extend(sentNanos, terms);", "hold.extend(System.nanoTime(), terms);",
					"a holder counts its lease from when it sent the renewal, never longer than Redis keeps it"),
			new Mutant("renewal-after-run-out", ENGINE + "renewal/LeaseWatchdog.java",
					"return hold.validUntilNanos() - sentNanos <= 0;", "return false;",
					"a hold whose lease ran out in its JVM never turns valid again"),
			new Mutant("term-outlives-lease", LEADER + "LeadershipTerm.java",
					"return this.endReason == null && this.lease.isValid();", "return this.endReason == null;",
					"a leader stops believing it leads once its lease ran out"),
			new Mutant("quorum-of-a-minority", ENGINE + "Quorum.java", "return this.nodes / 2 + 1;",
					"return this.nodes / 2;",
					"a hold on a Redlock quorum counts only once a majority of the nodes" + " granted it",
					REDLOCK_NODES));

	private Mutants() {
	}

}
