package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.distlock.Leadership;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.distlock.redis.CrossProcessLockTests.RIVAL_JVM_OPTIONS;
import static dev.distlock.redis.CrossProcessLockTests.RIVAL_REPLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link Leadership} across processes: candidates in rival JVMs ({@link LockWorkerMain}
 * in {@code lead} mode) on a real {@code redis-server}. A standby takes over within about
 * a lease when the leader is killed ({@code SIGKILL}) or paused ({@code SIGSTOP}), at
 * once when it yields or stops; a paused leader learns on resuming that it lost the
 * leadership before it can act on it; a stall of Redis revokes the leader before anyone
 * else can be elected, and one candidate is elected once Redis goes on.
 *
 * <p>
 * Every candidate asks its leadership every few milliseconds whether it leads and prints
 * the stretches in which it said so, in wall-clock time (one clock: the JVMs share a
 * machine). Two candidates never said so at the same time, apart from the time by which a
 * sample's clock reading may precede its answer ({@link #SAMPLE_LAG}). When Redis
 * restarts empty they may: the old leader learns of the loss at its next renewal, as a
 * lock holder does, and only the fencing token, greater for the new leader, tells them
 * apart.
 */
@Timeout(120)
class CrossProcessLeadershipTests {

	private static final String LOCK_KEY = "lock:report";

	/** The lease of candidates that are killed, paused, or lose Redis for a while. */
	private static final Duration LEASE = Duration.ofSeconds(1);

	/** A lease long enough that a hand-over well within it cannot be an expiry. */
	private static final Duration LONG_LEASE = Duration.ofSeconds(30);

	/** How long a waiter may sleep before it looks at the lock again. */
	private static final Duration RECHECK = Duration.ofMillis(RedisAcquirer.RECHECK_MILLIS);

	/** A bound well under {@link #LONG_LEASE} for what must happen at once. */
	private static final Duration AT_ONCE = Duration.ofSeconds(5);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(3);

	/** How long the candidates' Lettuce may take to reconnect to a restarted Redis. */
	private static final Duration RECONNECT = Duration.ofSeconds(20);

	/**
	 * How much earlier than its answer a sample may read the clock, on a busy machine:
	 * the overlap two stretches of belief may show without two leaders believing at once.
	 */
	private static final long SAMPLE_LAG = 50;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	/** When the rivals that were killed died, in wall-clock milliseconds. */
	private final Map<RivalJvm, Long> deaths = new HashMap<>();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void standbyTakesOverWithinAboutALeaseWhenTheLeaderIsKilled() {
		Election election = elect(LEASE);
		kill(election.leader());
		long killedNanos = System.nanoTime();
		long nextTerm = election.awaitStandbyElected(LEASE.plus(RECHECK).plus(MARGIN));
		System.out.println(
				"[leadership] the standby was elected " + Duration.ofNanos(System.nanoTime() - killedNanos).toMillis()
						+ " ms after the leader was killed (lease " + LEASE.toMillis() + " ms)");
		assertThat(nextTerm).isGreaterThan(election.term());
		assertNoTwoBelievedAtOnce(election.leader(), election.standby());
	}

	@Test
	void pausedLeaderLearnsOnResumingThatItLostTheLeadershipBeforeItCanActOnIt() {
		Election election = elect(LEASE);
		RivalJvm leader = election.leader();
		leader.pause();
		assertThat(election.awaitStandbyElected(LEASE.plus(RECHECK).plus(MARGIN))).isGreaterThan(election.term());
		leader.resume();
		leader.send("is-leader");
		assertThat(leader.awaitLine("IS-LEADER ", RIVAL_REPLY)).isEqualTo("IS-LEADER false");
		List<String> lines = leader.lines();
		int revoked = indexOf(lines, (line) -> line.startsWith("REVOKED " + election.term() + " "));
		assertThat(revoked).as("revoked, in\n%s", lines).isNotNegative();
		assertThat(revoked).as("revoked before it answered, in\n%s", lines)
			.isLessThan(lines.indexOf("IS-LEADER false"));
		assertNoTwoBelievedAtOnce(leader, election.standby());
	}

	@Test
	void standbyTakesOverAtOnceWhenTheLeaderYieldsAndWhenItStops() {
		Election election = elect(LONG_LEASE);
		RivalJvm first = election.leader();
		RivalJvm second = election.standby();
		first.send("yield");
		first.awaitLine("YIELDED", AT_ONCE);
		long secondTerm = election.awaitStandbyElected(AT_ONCE);
		System.out.println(
				"[leadership] the standby was elected " + handOverMillis(first, election.term(), second, secondTerm)
						+ " ms after the leader yielded (lease " + LONG_LEASE.toMillis() + " ms)");
		awaitWaiters(1);
		second.send("stop");
		second.awaitLine("STOPPED", AT_ONCE);
		long thirdTerm = awaitGrantAfter(first, secondTerm, AT_ONCE);
		System.out
			.println("[leadership] the standby was elected " + handOverMillis(second, secondTerm, first, thirdTerm)
					+ " ms after the leader stopped (lease " + LONG_LEASE.toMillis() + " ms)");
		assertNoTwoBelievedAtOnce(first, second);
	}

	@Test
	void stallOfRedisRevokesTheLeaderBeforeAnyoneElseIsElectedAndOneIsElectedOnceRedisGoesOn() {
		Election election = elect(LEASE);
		redis.server().pause();
		try {
			election.awaitRevoked(LEASE.plus(MARGIN));
		}
		finally {
			redis.server().resume();
		}
		election.awaitNextTerm();
		assertNoTwoBelievedAtOnce(election.leader(), election.standby());
	}

	@Test
	void restartOfRedisRevokesTheLeaderAndOneIsElectedWithAGreaterFencingToken() {
		Election election = elect(LEASE);
		redis.server().restart();
		election.awaitRevoked(RECONNECT);
		election.awaitNextTerm();
		long overlap = longestOverlap(stoppedStretches(election.leader(), election.standby()));
		System.out.println("[leadership] after Redis restarted empty, two candidates believed they led at once for "
				+ Math.max(0, overlap) + " ms (lease " + LEASE.toMillis() + " ms)");
	}

	/**
	 * Start a candidate that is elected, and a standby that waits in the lock's queue, in
	 * rival JVMs with the given lease.
	 */
	private Election elect(Duration lease) {
		RivalJvm leader = candidate(lease);
		long term = awaitGrantAfter(leader, 0, RIVAL_REPLY);
		return new Election(leader, term, standby(lease));
	}

	/**
	 * Start a candidate for {@code report} in a rival JVM with the given lease.
	 */
	private RivalJvm candidate(Duration lease) {
		RivalJvm rival = RivalJvm.builder(LockWorkerMain.class)
			.jvmOptions(RIVAL_JVM_OPTIONS)
			.args("lead", TestDriver.LETTUCE.name(), redis.server().uri(), "report", Long.toString(lease.toMillis()))
			.start();
		this.closer.add(rival);
		rival.awaitLine("CANDIDATE", RIVAL_REPLY);
		return rival;
	}

	/**
	 * Start a candidate while another leads, and wait until it waits in the lock's queue.
	 */
	private RivalJvm standby(Duration lease) {
		RivalJvm rival = candidate(lease);
		awaitWaiters(1);
		return rival;
	}

	private void awaitWaiters(long waiters) {
		await().atMost(RIVAL_REPLY).until(() -> TestLockRegistry.waitersOf(this.commands, LOCK_KEY) == waiters);
	}

	/**
	 * Kill a candidate with {@code SIGKILL}, and record when: its last stretch of belief
	 * ended before.
	 */
	private void kill(RivalJvm rival) {
		rival.kill();
		this.deaths.put(rival, System.currentTimeMillis());
	}

	/**
	 * Stop a candidate, and wait until it printed the end of its last stretch of belief.
	 */
	private static void stop(RivalJvm rival) {
		rival.send("stop");
		rival.awaitLine("STOPPED", RIVAL_REPLY);
		await().atMost(RIVAL_REPLY)
			.until(() -> count(rival.lines(), "BELIEVING ") == count(rival.lines(), "BELIEVED "));
	}

	/**
	 * Wait until the rival was granted a term later than the given one and said that it
	 * leads, and return the term's fencing token.
	 */
	private static long awaitGrantAfter(RivalJvm rival, long earlierTerm, Duration timeout) {
		long term = token(rival.awaitLine((line) -> line.startsWith("GRANTED ") && token(line) > earlierTerm, timeout));
		rival.awaitLine("BELIEVING " + term + " ", RIVAL_REPLY);
		return term;
	}

	/**
	 * Return how long after the old leader's revocation the new one was granted, by the
	 * wall clock of the two JVMs.
	 */
	private static long handOverMillis(RivalJvm from, long fromTerm, RivalJvm to, long toTerm) {
		long revokedAt = wallMillis(from.awaitLine("REVOKED " + fromTerm + " ", RIVAL_REPLY));
		long grantedAt = wallMillis(to.awaitLine("GRANTED " + toTerm + " ", RIVAL_REPLY));
		assertThat(grantedAt).as("granted after the revocation").isGreaterThanOrEqualTo(revokedAt);
		return grantedAt - revokedAt;
	}

	/**
	 * Stop the rivals still alive, and check that no two rivals said at the same time
	 * that they lead.
	 */
	private void assertNoTwoBelievedAtOnce(RivalJvm... rivals) {
		List<Stretch> stretches = stoppedStretches(rivals);
		long overlap = longestOverlap(stretches);
		assertThat(overlap).as("stretches of belief of two rivals: %s", stretches).isNotEqualTo(Long.MIN_VALUE);
		assertThat(overlap).as("longest overlap of two rivals' stretches of belief, in ms: %s", stretches)
			.isLessThanOrEqualTo(SAMPLE_LAG);
		System.out.println("[leadership] between two leaders' stretches of belief: at least " + (-overlap) + " ms");
	}

	/**
	 * Return the longest time two stretches of different rivals overlap, in milliseconds;
	 * negative when none do, minus the shortest gap between them.
	 */
	private static long longestOverlap(List<Stretch> stretches) {
		long longest = Long.MIN_VALUE;
		for (Stretch one : stretches) {
			for (Stretch other : stretches) {
				if (one.rival() != other.rival() && one.from() <= other.from()) {
					longest = Math.max(longest, Math.min(one.to(), other.to()) - other.from());
				}
			}
		}
		return longest;
	}

	/**
	 * Stop the rivals still alive, and return the stretches in which each said that it
	 * leads. A stretch of a rival that was killed ends when it was killed.
	 */
	private List<Stretch> stoppedStretches(RivalJvm... rivals) {
		List<Stretch> stretches = new ArrayList<>();
		for (RivalJvm rival : rivals) {
			Long diedAt = this.deaths.get(rival);
			if (diedAt == null) {
				stop(rival);
			}
			for (String line : rival.lines()) {
				String[] words = line.split(" ");
				if (words[0].equals("BELIEVED")) {
					stretches.add(new Stretch(rival, Long.parseLong(words[1]), Long.parseLong(words[2]),
							Long.parseLong(words[3])));
				}
				else if (words[0].equals("BELIEVING") && rival.lines()
					.stream()
					.noneMatch((ended) -> ended.startsWith("BELIEVED " + words[1] + " "))) {
					stretches.add(new Stretch(rival, Long.parseLong(words[1]), Long.parseLong(words[2]), diedAt));
				}
			}
		}
		return stretches;
	}

	private static long token(String line) {
		return Long.parseLong(line.split(" ")[1]);
	}

	private static long wallMillis(String line) {
		return Long.parseLong(line.split(" ")[2]);
	}

	private static int indexOf(List<String> lines, Predicate<String> condition) {
		for (int i = 0; i < lines.size(); i++) {
			if (condition.test(lines.get(i))) {
				return i;
			}
		}
		return -1;
	}

	private static long count(List<String> lines, String prefix) {
		return lines.stream().filter((line) -> line.startsWith(prefix)).count();
	}

	/**
	 * Two candidates in rival JVMs, one elected and one waiting.
	 *
	 * @param leader the elected one
	 * @param term the fencing token of its term
	 * @param standby the one that waits in the lock's queue
	 */
	private record Election(RivalJvm leader, long term, RivalJvm standby) {

		/**
		 * Wait until the standby was granted a later term and said that it leads, and
		 * return the fencing token of that term.
		 */
		long awaitStandbyElected(Duration timeout) {
			return awaitGrantAfter(this.standby, this.term, timeout);
		}

		/**
		 * Wait until the leader published the revocation of its term.
		 */
		void awaitRevoked(Duration timeout) {
			this.leader.awaitLine("REVOKED " + this.term + " ", timeout);
		}

		/**
		 * Wait until one of the two said that it leads for a later term.
		 */
		void awaitNextTerm() {
			await().atMost(RECONNECT).until(() -> believesAfter(this.leader) || believesAfter(this.standby));
		}

		private boolean believesAfter(RivalJvm rival) {
			return rival.lines().stream().anyMatch((line) -> line.startsWith("BELIEVING ") && token(line) > this.term);
		}

	}

	/**
	 * A stretch of wall-clock time in which a rival said that it leads.
	 *
	 * @param rival the rival
	 * @param term the fencing token of its term
	 * @param from the first sample that said so
	 * @param to the last sample that said so, or when the rival was killed
	 */
	private record Stretch(RivalJvm rival, long term, long from, long to) {

		@Override
		public String toString() {
			return this.rival.pid() + "#" + this.term + "[" + this.from + ", " + this.to + "]";
		}

	}

}
