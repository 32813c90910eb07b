package dev.distlock.fencing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.distlock.LockLease;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The failure that fencing exists for, on one database that two JVMs share: a holder in
 * another JVM ({@link FenceHolderMain}) writes in a transaction, is stalled with
 * {@code SIGSTOP} until its lease has run out, and a new holder in this JVM takes the
 * lock with a greater fencing token and writes through the {@link JdbcFence}.
 */
@Timeout(120)
abstract class StalledHolderFenceContract {

	private static final String LOCK = "ledger";

	private static final Duration LEASE = Duration.ofSeconds(1);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(3);

	/** How long the other JVM may take to start and report, or to answer a command. */
	private static final Duration REPLY = Duration.ofSeconds(30);

	/** Options that make the short-lived JVM start faster. */
	private static final String[] JVM_OPTIONS = { "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC" };

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private final List<String> database;

	private final FenceTables tables;

	private final DataSourceTransactionManager transactions;

	private final JdbcFence fence;

	/**
	 * Create the tests of a database.
	 * @param jdbcUrl its URL, which both JVMs connect to
	 * @param username the user
	 * @param password the user's password
	 */
	StalledHolderFenceContract(String jdbcUrl, String username, String password) {
		DataSource dataSource = new DriverManagerDataSource(jdbcUrl, username, password);
		this.database = List.of(jdbcUrl, username, password);
		this.tables = new FenceTables(dataSource);
		this.transactions = new DataSourceTransactionManager(dataSource);
		this.fence = new JdbcFence(dataSource);
	}

	/**
	 * Wait until a statement waits for a row lock that another transaction holds.
	 * @param timeout how long to wait at most
	 */
	protected abstract void awaitWaitingForLock(Duration timeout);

	@BeforeEach
	void createTables() {
		this.tables.recreate();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void stalledHolderThatResumesAfterTheNewHolderCommittedIsRolledBackAndTheNewHoldersWriteStands() {
		RivalJvm stalled = startHolder();
		long stalledToken = acquiredToken(stalled);
		assertThat(run(stalled, "begin")).isEqualTo("BEGUN");
		assertThat(run(stalled, "write stale")).isEqualTo("WROTE");
		stall(stalled);
		long newToken;
		try (LockLease lease = acquire()) {
			newToken = lease.fencingToken();
			assertThat(newToken).isGreaterThan(stalledToken);
			writeAndAdvance(transaction(), "new", newToken);
		}
		stalled.resume();
		assertThat(run(stalled, "advance")).isEqualTo("ROLLED BACK StaleFencingTokenException: Fencing token "
				+ stalledToken + " for resource 'ledger' is stale: token " + newToken
				+ " was recorded already, so the lock this token belongs to was lost and a later holder has written");
		assertThat(this.tables.ledger()).containsExactly("new");
		assertThat(this.tables.recordedTokens()).containsExactly("ledger=" + newToken);
	}

	@Test
	void stalledHolderThatAdvancedBeforeItStalledHoldsTheRowLockSoTheNewHolderWritesAfterItCommits() throws Exception {
		RivalJvm stalled = startHolder();
		long stalledToken = acquiredToken(stalled);
		assertThat(run(stalled, "begin")).isEqualTo("BEGUN");
		assertThat(run(stalled, "write stale")).isEqualTo("WROTE");
		assertThat(run(stalled, "advance")).isEqualTo("ADVANCED " + stalledToken);
		stall(stalled);
		try (LockLease lease = acquire(); TestThread newHolder = TestThread.start("new-holder")) {
			CompletableFuture<Void> newWrite = newHolder
				.run(() -> writeAndAdvance(transaction(), "new", lease.fencingToken()));
			awaitWaitingForLock(REPLY);
			assertThat(newWrite).isNotDone();
			stalled.resume();
			assertThat(run(stalled, "commit")).isEqualTo("COMMITTED");
			newWrite.get(REPLY.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(this.tables.ledger()).containsExactly("new", "stale");
			assertThat(this.tables.recordedTokens()).containsExactly("ledger=" + lease.fencingToken());
		}
	}

	@Test
	void transactionTimeoutEndsTheNewHoldersWaitForTheRowLockOfAStalledHolder() {
		RivalJvm stalled = startHolder();
		long stalledToken = acquiredToken(stalled);
		assertThat(run(stalled, "begin")).isEqualTo("BEGUN");
		assertThat(run(stalled, "advance")).isEqualTo("ADVANCED " + stalledToken);
		stall(stalled);
		try (LockLease lease = acquire()) {
			TransactionTemplate timed = transaction();
			timed.setTimeout(2);
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> writeAndAdvance(timed, "new", lease.fencingToken()));
			assertThat(this.tables.ledger()).isEmpty();
			stalled.resume();
			assertThat(run(stalled, "commit")).isEqualTo("COMMITTED");
			writeAndAdvance(transaction(), "new", lease.fencingToken());
			assertThat(this.tables.ledger()).containsExactly("new");
			assertThat(this.tables.recordedTokens()).containsExactly("ledger=" + lease.fencingToken());
		}
	}

	private RivalJvm startHolder() {
		List<String> args = List.of(redis.server().uri(), LOCK, Long.toString(LEASE.toMillis()));
		return this.closer.add(RivalJvm.builder(FenceHolderMain.class)
			.jvmOptions(JVM_OPTIONS)
			.args(args.toArray(String[]::new))
			.args(this.database.toArray(String[]::new))
			.start());
	}

	private static long acquiredToken(RivalJvm holder) {
		return Long.parseLong(holder.awaitLine("ACQUIRED ", REPLY).substring("ACQUIRED ".length()));
	}

	/**
	 * Send a command to the other JVM and wait for its answer; each command is sent once.
	 * @param holder the other JVM
	 * @param command the command
	 * @return the outcome it answered
	 */
	private static String run(RivalJvm holder, String command) {
		holder.send(command);
		return holder.awaitLine(command + ": ", REPLY).substring(command.length() + 2);
	}

	/**
	 * Stall the other JVM with {@code SIGSTOP} and wait until its lock has expired.
	 */
	private void stall(RivalJvm holder) {
		holder.pause();
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), REPLY)) {
			await().atMost(LEASE.plus(MARGIN))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> client.sync().exists("lock:" + LOCK) == 0L);
		}
	}

	private LockLease acquire() {
		TestLockRegistry locks = this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30)));
		return locks.registry().acquire(LOCK, Duration.ZERO);
	}

	private TransactionTemplate transaction() {
		return new TransactionTemplate(this.transactions);
	}

	private void writeAndAdvance(TransactionTemplate transaction, String entry, long fencingToken) {
		transaction.executeWithoutResult((status) -> {
			this.tables.write(entry);
			this.fence.advance(LOCK, fencingToken);
		});
	}

}
