package dev.distlock.fencing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import javax.sql.DataSource;

import dev.distlock.LockLease;
import dev.distlock.redis.TestLockRegistry;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * A lock holder that {@link StalledHolderFenceContract} runs in its own JVM, so that it
 * can be stalled with {@code SIGSTOP}, and drives through standard input and output.
 *
 * <p>
 * Arguments: {@code <redis-uri> <lock-name> <lease-millis> <jdbc-url> <user> <password>}.
 * It acquires the lock in watchdog mode with that lease time, prints
 * {@code ACQUIRED <fencing token>} and then runs commands, one per line, against the
 * database, in one transaction, answering each with a line {@code <command>: <outcome>}:
 * <ul>
 * <li>{@code begin}: begins it; {@code BEGUN};</li>
 * <li>{@code write <entry>}: inserts the entry into {@value FenceTables#LEDGER};
 * {@code WROTE};</li>
 * <li>{@code advance}: advances the {@link JdbcFence} of the resource named like the lock
 * with the lock's fencing token; {@code ADVANCED <fencing token>};</li>
 * <li>{@code commit}: commits; {@code COMMITTED}.</li>
 * </ul>
 * A command that throws rolls the transaction back, as {@code @Transactional} would:
 * {@code ROLLED BACK <exception class>: <message>}. Other failures are printed to
 * standard error and end the JVM with exit code 1.
 */
final class FenceHolderMain {

	private FenceHolderMain() {
	}

	public static void main(String[] args) {
		try {
			hold(args[0], args[1], Duration.ofMillis(Long.parseLong(args[2])),
					new DriverManagerDataSource(args[3], args[4], args[5]));
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private static void hold(String redisUri, String name, Duration lease, DataSource dataSource) throws Exception {
		DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
		FenceTables tables = new FenceTables(dataSource);
		JdbcFence fence = new JdbcFence(dataSource);
		try (TestLockRegistry locks = TestLockRegistry.create(redisUri, lease)) {
			LockLease held = locks.registry()
				.tryAcquire(name, Duration.ZERO)
				.orElseThrow(() -> new IllegalStateException("Lock '" + name + "' is taken"));
			System.out.println("ACQUIRED " + held.fencingToken());
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			TransactionStatus transaction = null;
			for (String line = in.readLine(); line != null; line = in.readLine()) {
				String[] command = line.split(" ", 2);
				try {
					switch (command[0]) {
						case "begin" -> {
							transaction = transactions.getTransaction(new DefaultTransactionDefinition());
							answer(line, "BEGUN");
						}
						case "write" -> {
							tables.write(command[1]);
							answer(line, "WROTE");
						}
						case "advance" -> {
							fence.advance(name, held.fencingToken());
							answer(line, "ADVANCED " + held.fencingToken());
						}
						case "commit" -> {
							transactions.commit(transaction);
							answer(line, "COMMITTED");
						}
						default -> throw new IllegalArgumentException("Unknown command " + line);
					}
				}
				catch (RuntimeException ex) {
					if (transaction != null && !transaction.isCompleted()) {
						transactions.rollback(transaction);
					}
					answer(line, "ROLLED BACK " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
				}
			}
		}
	}

	private static void answer(String command, String outcome) {
		System.out.println(command + ": " + outcome);
	}

}
