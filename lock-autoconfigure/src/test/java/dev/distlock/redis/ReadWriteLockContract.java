package dev.distlock.redis;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.HoldKind;
import dev.distlock.LockName;
import dev.distlock.LockRegistryContract;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import dev.distlock.testsupport.LettuceClients;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the read/write locks of a {@link RedisLockRegistry} do in Redis, beyond what the
 * {@link LockRegistryContract} states of every registry's read/write locks: the keys they
 * leave, the messages that wake their waiters and the round trips of a reentry. Run by
 * every class that runs the {@link RedisLockRegistryContract}: on every Redis deployment
 * and every {@link TestDriver}.
 */
interface ReadWriteLockContract extends LockRegistryContract, ContractDeployment {

	String NAME = "catalogue";

	String KEY = "lock:" + NAME;

	/**
	 * Readers and writers leave none of their keys in Redis once they released.
	 */
	@Test
	@Override
	default void readersShareTheLockWhileAWriterExcludesReadersAndWriters() {
		LockRegistryContract.super.readersShareTheLockWhileAWriterExcludesReadersAndWriters();
		assertNothingLeft();
	}

	/**
	 * One message grants the waiting writer the lock, one grants it to the late reader,
	 * and none comes before the early reader's release.
	 */
	@Test
	@Override
	default void waitingWriterKeepsLaterReadersOutAndIsWokenWhenTheEarlierReaderReleases() throws Exception {
		BlockingQueue<String> grants = grantMessages();
		LockRegistryContract.super.waitingWriterKeepsLaterReadersOutAndIsWokenWhenTheEarlierReaderReleases();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(grants)
				.as("the messages that granted the lock to the writer, then to the late reader")
				.hasSize(2)
				.allSatisfy((grant) -> assertThat(grant).startsWith(KEY + LockName.RESERVED)));
		assertNothingLeft();
	}

	@Test
	default void readLockIsReenteredWithoutARoundTrip() throws Exception {
		FencedLock reader = registry(LEASE).readWriteLock(NAME).readLock();
		reader.lock();
		List<CommandStats> stats = commandStats();
		stats.forEach(CommandStats::reset);
		reader.lock();
		assertThat(reader.tryLock()).isTrue();
		reader.unlock();
		reader.unlock();
		assertThat(stats).as("scripts run")
			.allSatisfy((server) -> assertThat(server.calls()).doesNotContainKeys("evalsha", "eval"));
		assertThat(closer().add(TestThread.start("other-thread"))
			.call(reader::isHeldByCurrentThread)
			.get(10, TimeUnit.SECONDS)).isFalse();
		reader.unlock();
		assertNothingLeft();
	}

	/**
	 * Listen to the messages that grant locks to the waiters of every registry, or wake
	 * them, from now on.
	 * @return the messages received: the key of a lock released, or granted with the
	 * grant's details after it
	 */
	private BlockingQueue<String> grantMessages() {
		RedisClient client = RedisClient.create(serverUris().get(0));
		closer().add(() -> LettuceClients.shutdown(client));
		return TestLockRegistry.grantMessages(client, closer());
	}

	private void assertNothingLeft() {
		LockId id = new LockId(LockName.of(NAME), KEY);
		assertThat(keyCommands().exists(KEY, LockKeys.heldKey(id, HoldKind.READ_SHARE),
				LockKeys.helperKey(KEY, LockKeys.QUEUE), LockKeys.helperKey(KEY, LockKeys.WAITERS)))
			.as("keys left")
			.isZero();
	}

}
