package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.distlock.DistributedLock;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lock of a {@link DistributedLock} method covers its transaction: it is taken before
 * the transaction begins and released after it commits, also when the transaction was
 * started by the caller, and a transaction whose lock is known lost before the commit
 * rolls back instead. Runs against a real {@code redis-server} and an in-memory H2
 * database.
 */
@Timeout(60)
class TransactionalLockingTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s")
		.withUserConfiguration(TransactionConfiguration.class);

	private final RedisLocks locks = new RedisLocks(redis.server());

	@Test
	void rivalThatAcquiresTheLockTheMomentItIsReleasedSeesTheCommittedRow() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			try (TestLockRegistry rival = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
				for (int i = 0; i < 5; i++) {
					int entry = i;
					CountDownLatch inserted = new CountDownLatch(1);
					CompletableFuture<Void> write = CompletableFuture.runAsync(() -> ledger.record(entry, inserted));
					assertThat(inserted.await(10, TimeUnit.SECONDS)).isTrue();
					Integer rows;
					try (LockLease lease = rival.registry().acquire("ledger", Duration.ofSeconds(10))) {
						rows = jdbc.queryForObject("select count(*) from ledger where id = ?", Integer.class, entry);
					}
					write.get(10, TimeUnit.SECONDS);
					assertThat(rows).as("row %d visible to the next holder", entry).isOne();
				}
			}
		});
	}

	@Test
	void methodJoiningTheCallersTransactionKeepsTheLockUntilThatTransactionCommits() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			List<String> keysAfterMethod = transaction.execute((status) -> {
				ledger.recordJoined(100);
				return this.locks.keys("lock:ledger");
			});
			assertThat(keysAfterMethod).containsExactly("lock:ledger");
			assertThat(this.locks.keys("lock:ledger")).isEmpty();
		});
	}

	@Test
	void futureCompletedInsideTheCallersTransactionKeepsTheLockUntilThatTransactionCommits() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			List<String> keysAfterFuture = transaction.execute((status) -> {
				CompletableFuture<Integer> pending = new CompletableFuture<>();
				CompletableFuture<Integer> result = ledger.recordLater(pending);
				pending.complete(200);
				assertThat(result.join()).isEqualTo(200);
				return this.locks.keys("lock:ledger-async");
			});
			assertThat(keysAfterFuture).as("keys once the future completed, before the commit")
				.containsExactly("lock:ledger-async");
			assertThat(this.locks.keys("lock:ledger-async")).isEmpty();
		});
	}

	@Test
	void futureCompletingAfterTheCallersTransactionKeepsTheLockUntilItCompletes() throws Exception {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			CompletableFuture<Integer> pending = new CompletableFuture<>();
			CompletableFuture<Integer> result = transaction.execute((status) -> ledger.recordLater(pending));
			assertThat(this.locks.keys("lock:ledger-async")).as("keys once the transaction committed, future pending")
				.containsExactly("lock:ledger-async");
			pending.complete(300);
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(300);
			assertThat(this.locks.keys("lock:ledger-async")).isEmpty();
		});
	}

	@Test
	void transactionOfAMethodWhoseLockIsLostRollsBackAndTheCallerGetsLockLostException() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> ledger.recordWhile(400, () -> this.locks.takeOver(context, "lock:ledger-checked")))
				.withMessageMatching("Lock 'ledger-checked' \\(fencing token \\d+\\) was lost before the transaction"
						+ " committed; the transaction is rolled back")
				.satisfies((ex) -> assertThat(ex.getSuppressed()).isEmpty());
			assertThat(rows(context, 400)).isZero();
			assertThat(this.locks.get("lock:ledger-checked")).isEqualTo("someone-else");
		});
	}

	@Test
	void transactionOfAMethodThatKeepsItsLockCommits() {
		this.contextRunner.run((context) -> {
			context.getBean(LedgerService.class).recordWhile(401, () -> {
			});
			assertThat(rows(context, 401)).isOne();
		});
	}

	@Test
	void transactionOfAMethodThatOutlivesItsFixedLeaseRollsBack() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> ledger.recordSlowly(402))
				.withMessageContaining("was lost before the transaction committed");
			assertThat(rows(context, 402)).isZero();
		});
	}

	@Test
	void transactionOfAMethodWhoseLockIsLostCommitsWhenOnLostIsLog() {
		this.contextRunner.withPropertyValues("distlock.on-lost=log").run((context) -> {
			context.getBean(LedgerService.class)
				.recordWhile(403, () -> this.locks.takeOver(context, "lock:ledger-checked"));
			assertThat(rows(context, 403)).isOne();
		});
	}

	@Test
	void callersTransactionThatTheReleaseWaitsForRollsBackOnceTheLockIsLost() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> transaction.executeWithoutResult((status) -> {
					ledger.recordJoined(500);
					this.locks.takeOver(context, "lock:ledger");
				}))
				.withMessageMatching(
						"(?s).*Lock 'ledger' \\(fencing token \\d+\\) was lost before the transaction committed.*");
			assertThat(rows(context, 500)).isZero();
			assertThat(this.locks.get("lock:ledger")).isEqualTo("someone-else");
		});
	}

	@Test
	void callersTransactionThatTheReleaseWaitsForCommitsWhileTheLockIsHeld() {
		this.contextRunner.run((context) -> {
			LedgerService ledger = context.getBean(LedgerService.class);
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.executeWithoutResult((status) -> ledger.recordJoined(501));
			assertThat(rows(context, 501)).isOne();
		});
	}

	private static Integer rows(ApplicationContext context, int id) {
		return context.getBean(JdbcTemplate.class)
			.queryForObject("select count(*) from ledger where id = ?", Integer.class, id);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionConfiguration {

		@Bean
		DataSource dataSource() {
			SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.h2.Driver(),
					"jdbc:h2:mem:ledger-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
			new JdbcTemplate(dataSource).execute("create table ledger (id int primary key)");
			return dataSource;
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		LedgerService ledgerService(JdbcTemplate jdbc) {
			return new LedgerService(jdbc);
		}

	}

	static class LedgerService {

		private final JdbcTemplate jdbc;

		LedgerService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(name = "ledger", waitTime = "10s")
		@Transactional
		public void record(int id, CountDownLatch inserted) {
			this.jdbc.update("insert into ledger (id) values (?)", id);
			// A slow commit: a lock released before the commit would let the rival in
			// now.
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					sleep(100);
				}

			});
			inserted.countDown();
		}

		@DistributedLock(name = "ledger")
		@Transactional
		public void recordJoined(int id) {
			this.jdbc.update("insert into ledger (id) values (?)", id);
		}

		@DistributedLock(name = "ledger-checked")
		@Transactional
		public void recordWhile(int id, Runnable meanwhile) {
			this.jdbc.update("insert into ledger (id) values (?)", id);
			meanwhile.run();
		}

		@DistributedLock(name = "ledger-fixed", leaseTime = "200ms")
		@Transactional
		public void recordSlowly(int id) {
			this.jdbc.update("insert into ledger (id) values (?)", id);
			sleep(400);
		}

		@DistributedLock(name = "ledger-async")
		public CompletableFuture<Integer> recordLater(CompletableFuture<Integer> pending) {
			return pending;
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
