package dev.distlock.fencing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.distlock.autoconfigure.DistLockJdbcFenceAutoConfiguration;
import dev.distlock.autoconfigure.DistLockJdbcSchemaInitializer;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static dev.distlock.fencing.FenceAssertions.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The behaviour of {@link JdbcFence} on one database, written once and run on each
 * database by a subclass: the tokens it records and refuses, the transaction it shares
 * with the write it guards, concurrent transactions, and the creation of its table.
 */
@Timeout(60)
abstract class JdbcFenceContract {

	private static final Duration LOCK_WAIT = Duration.ofSeconds(10);

	private final Closer closer = new Closer();

	private final DataSource dataSource;

	private final boolean embedded;

	private final JdbcTemplate jdbc;

	private final FenceTables tables;

	private final TransactionTemplate transaction;

	private final JdbcFence fence;

	/**
	 * Create the tests of a database.
	 * @param dataSource the database, the same for every test of the class
	 * @param embedded whether Spring Boot counts it as embedded
	 */
	JdbcFenceContract(DataSource dataSource, boolean embedded) {
		this.dataSource = dataSource;
		this.embedded = embedded;
		this.jdbc = new JdbcTemplate(dataSource);
		this.tables = new FenceTables(dataSource);
		this.transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.fence = new JdbcFence(dataSource);
	}

	/**
	 * Wait until a thread's statement waits for a lock that another transaction holds.
	 * @param thread the thread
	 * @param timeout how long to wait at most
	 */
	protected abstract void awaitWaitingForLock(TestThread thread, Duration timeout);

	@BeforeEach
	void createTables() {
		this.tables.recreate("fences");
	}

	@AfterEach
	void stopThreads() throws Exception {
		this.closer.close();
	}

	@Test
	void firstAdvanceOfAResourceRecordsItsToken() {
		advance("report", 5);
		assertThat(this.tables.recordedTokens()).containsExactly("report=5");
	}

	@Test
	void higherTokenIsRecorded() {
		advance("report", 5);
		advance("report", 9);
		assertThat(this.tables.recordedTokens()).containsExactly("report=9");
	}

	@Test
	void equalTokenIsAcceptedSoThatOneHolderMayWriteTwice() {
		advance("report", 5);
		advance("report", 5);
		this.transaction.executeWithoutResult((status) -> {
			this.fence.advance("report", 5);
			this.fence.advance("report", 5);
		});
		assertThat(this.tables.recordedTokens()).containsExactly("report=5");
	}

	@Test
	void lowerTokenIsRefusedAndItsTransactionRollsBackWithTheWriteItGuards() {
		advance("report", 9);
		assertRefused(() -> writeAndAdvance("late write", "report", 5), "report", 5, 9);
		assertThat(this.tables.ledger()).isEmpty();
		assertThat(this.tables.recordedTokens()).containsExactly("report=9");
	}

	@Test
	void lowerTokenOfAnotherResourceIsRecorded() {
		advance("report", 9);
		advance("invoice", 5);
		assertThat(this.tables.recordedTokens()).containsExactly("invoice=5", "report=9");
	}

	@Test
	void tokenRecordedInATransactionThatRollsBackIsForgotten() {
		advance("report", 5);
		this.transaction.executeWithoutResult((status) -> {
			this.fence.advance("report", 9);
			this.fence.advance("invoice", 9);
			status.setRollbackOnly();
		});
		assertThat(this.tables.recordedTokens()).containsExactly("report=5");
		advance("report", 7);
		assertThat(this.tables.recordedTokens()).containsExactly("report=7");
	}

	@Test
	void advanceOutsideATransactionThrowsAndRecordsNothing() {
		assertThatIllegalStateException().isThrownBy(() -> this.fence.advance("report", 5))
			.withMessage("JdbcFence.advance(\"report\", 5) runs outside a transaction of its DataSource; it must run"
					+ " in the transaction of the write it guards, so that both commit or roll back together: call"
					+ " it from a @Transactional method whose transaction manager is this DataSource's (a"
					+ " DataSourceTransactionManager, JdbcTransactionManager or JpaTransactionManager on it)");
		assertThat(this.tables.recordedTokens()).isEmpty();
	}

	@Test
	void advanceInATransactionOfAnotherDataSourceThrowsAndRecordsNothing() {
		TransactionTemplate otherTransaction = new TransactionTemplate(
				new DataSourceTransactionManager(new DelegatingDataSource(this.dataSource)));
		assertThatIllegalStateException()
			.isThrownBy(() -> otherTransaction.executeWithoutResult((status) -> this.fence.advance("report", 5)))
			.withMessageStartingWith("JdbcFence.advance(\"report\", 5) runs outside a transaction of its DataSource");
		assertThat(this.tables.recordedTokens()).isEmpty();
	}

	@ParameterizedTest(name = "{0} first, then {1}")
	@CsvSource({ "9, 5", "5, 9" })
	void concurrentTransactionsOnANewResourceEndWithTheHigherTokenAndRefuseTheStaleOne(long first, long second)
			throws Exception {
		race("report", first, second);
	}

	@ParameterizedTest(name = "{0} first, then {1}")
	@CsvSource({ "9, 5", "5, 9" })
	void concurrentTransactionsOnAnExistingResourceEndWithTheHigherTokenAndRefuseTheStaleOne(long first, long second)
			throws Exception {
		advance("report", 1);
		race("report", first, second);
	}

	@Test
	void defaultInitializationCreatesTheTableOnlyOnAnEmbeddedDatabase() {
		this.tables.drop(JdbcFence.DEFAULT_TABLE_NAME);
		contextRunner().run((context) -> assertThat(context).hasNotFailed().hasSingleBean(JdbcFence.class));
		assertThat(this.tables.exists(JdbcFence.DEFAULT_TABLE_NAME)).isEqualTo(this.embedded);
	}

	@Test
	void initializationNeverCreatesNoTable() {
		this.tables.drop(JdbcFence.DEFAULT_TABLE_NAME);
		contextRunner().withPropertyValues("distlock.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcFence.class)
				.doesNotHaveBean(DistLockJdbcSchemaInitializer.class));
		assertThat(this.tables.exists(JdbcFence.DEFAULT_TABLE_NAME)).isFalse();
	}

	@Test
	void initializationAlwaysCreatesTheTableAndKeepsAnExistingOne() {
		this.tables.drop(JdbcFence.DEFAULT_TABLE_NAME);
		contextRunner().withPropertyValues("distlock.jdbc.initialize-schema=always")
			.run((context) -> assertThat(context).hasNotFailed());
		advance("report", 5);
		contextRunner().withPropertyValues("distlock.jdbc.initialize-schema=always")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(this.tables.recordedTokens()).containsExactly("report=5");
	}

	@Test
	void initializationCreatesTheConfiguredTableThatTheFenceUses() {
		contextRunner().withPropertyValues("distlock.jdbc.initialize-schema=always", "distlock.jdbc.table-name=fences")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcFence fence = context.getBean(JdbcFence.class);
				this.transaction.executeWithoutResult((status) -> fence.advance("report", 5));
			});
		assertThat(this.jdbc.queryForObject("SELECT token FROM fences WHERE resource = 'report'", Long.class))
			.isEqualTo(5);
		assertThat(this.tables.recordedTokens()).isEmpty();
	}

	/**
	 * Two transactions advance one resource at once: the first advances and keeps its
	 * transaction open until the second waits for its lock, then commits. The second
	 * token is recorded after the first if it is higher, and refused otherwise.
	 */
	private void race(String resource, long first, long second) throws Exception {
		TestThread firstThread = this.closer.add(TestThread.start("first-" + first));
		TestThread secondThread = this.closer.add(TestThread.start("second-" + second));
		CountDownLatch advanced = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		CompletableFuture<Void> firstCommitted = firstThread
			.run(() -> this.transaction.executeWithoutResult((status) -> {
				this.fence.advance(resource, first);
				advanced.countDown();
				awaitLatch(commit);
			}));
		assertThat(advanced.await(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("first advanced").isTrue();
		CompletableFuture<Void> secondCommitted = secondThread
			.run(() -> this.transaction.executeWithoutResult((status) -> this.fence.advance(resource, second)));
		awaitWaitingForLock(secondThread, LOCK_WAIT);
		assertThat(secondCommitted).isNotDone();
		commit.countDown();
		firstCommitted.get(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		if (second > first) {
			secondCommitted.get(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		else {
			assertRefused(() -> {
				try {
					secondCommitted.get(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
				}
				catch (ExecutionException ex) {
					throw ex.getCause();
				}
			}, resource, second, first);
		}
		assertThat(this.tables.recordedTokens()).containsExactly(resource + "=" + Math.max(first, second));
	}

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockJdbcFenceAutoConfiguration.class))
			.withBean(DataSource.class, () -> this.dataSource);
	}

	private void advance(String resource, long fencingToken) {
		this.transaction.executeWithoutResult((status) -> this.fence.advance(resource, fencingToken));
	}

	private void writeAndAdvance(String entry, String resource, long fencingToken) {
		this.transaction.executeWithoutResult((status) -> {
			this.tables.write(entry);
			this.fence.advance(resource, fencingToken);
		});
	}

	private static void awaitLatch(CountDownLatch latch) {
		try {
			assertThat(latch.await(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("told to commit").isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
