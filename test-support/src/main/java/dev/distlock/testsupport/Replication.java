package dev.distlock.testsupport;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waits for a primary's replica to have acknowledged everything written so far.
 * <p>
 * {@code WAIT} waits for the last write of its own connection, so a {@code WAIT} on a
 * connection that wrote nothing returns at once. And every {@code WAIT} that has to ask
 * adds a {@code REPLCONF GETACK} to the replication stream, which the replica
 * acknowledges only with its next periodic acknowledgement (one a second); until then, on
 * Redis 6.2, which counts a client's offset after any command, the next {@code WAIT} of
 * any connection counts no replica.
 */
public final class Replication {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Pattern WRITTEN = Pattern.compile("master_repl_offset:(\\d+)");

	private static final Pattern ACKNOWLEDGED = Pattern.compile("slave0:.*offset=(\\d+)");

	private Replication() {
	}

	/**
	 * Writes a mark on the primary, waits until its one replica acknowledged it, then
	 * until the replica acknowledged the primary's whole replication stream.
	 * @param primary a primary with one replica
	 * @param timeout how long each wait may take at most
	 */
	public static void awaitAcknowledged(RedisServer primary, Duration timeout) {
		try (RedisTestClient client = RedisTestClient.connect(primary.uri(), COMMAND_TIMEOUT)) {
			client.sync().set("replicated-mark", "1");
			assertThat(client.sync().waitForReplication(1, timeout.toMillis())).isOne();
			await().atMost(timeout)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> offsets(client.sync().info("replication")), (offsets) -> offsets[0] == offsets[1]);
		}
	}

	/**
	 * Returns the primary's replication offset and the offset its replica acknowledged.
	 */
	private static long[] offsets(String replicationInfo) {
		Matcher written = WRITTEN.matcher(replicationInfo);
		Matcher acknowledged = ACKNOWLEDGED.matcher(replicationInfo);
		assertThat(written.find() && acknowledged.find()).as(replicationInfo).isTrue();
		return new long[] { Long.parseLong(written.group(1)), Long.parseLong(acknowledged.group(1)) };
	}

}
