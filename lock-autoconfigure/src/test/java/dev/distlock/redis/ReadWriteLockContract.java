package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The behavioural contract of the read/write locks of a {@link RedisLockRegistry},
 * written once and run by every class that runs the {@link RedisLockRegistryContract}: on
 * every Redis deployment and every {@link TestDriver}. Each registry stands for one
 * application instance.
 */
interface ReadWriteLockContract extends ContractDeployment {

	/** Longer than any of these tests, so that no renewal runs while they count. */
	Duration LEASE = Duration.ofSeconds(30);

	/** How long a waiter may take to start waiting, or to get what it waits for. */
	Duration WAIT = Duration.ofSeconds(10);

	String NAME = "catalogue";

	String KEY = "lock:" + NAME;

	/**
	 * Return the URIs of the servers of the deployment that may hold a lock: its
	 * primaries. Every message published on the deployment can be heard on the first.
	 * @return the URIs
	 */
	List<String> serverUris();

	@Test
	default void readersShareTheLockWhileAWriterExcludesReadersAndWriters() {
		FencedLock firstReader = registry(LEASE).readWriteLock(NAME).readLock();
		RedisLockRegistry secondRegistry = registry(LEASE);
		FencedLock secondReader = secondRegistry.readWriteLock(NAME).readLock();
		RedisLockRegistry writers = registry(LEASE);
		FencedLock writer = writers.readWriteLock(NAME).writeLock();
		assertThat(firstReader.tryLock()).isTrue();
		assertThat(secondReader.tryLock()).as("a second reader").isTrue();
		assertThat(secondRegistry.heldLocks()).singleElement().satisfies((held) -> {
			assertThat(held.kind()).isEqualTo("shared");
			assertThat(held.key()).isEqualTo(HoldKind.READ_SHARE.heldKey(id()));
		});
		assertThat(writer.tryLock()).as("a writer while readers read").isFalse();
		assertThat(writers.obtain(NAME).tryLock()).as("the lock of the same name while readers read").isFalse();
		long readToken = Math.max(firstReader.fencingToken(), secondReader.fencingToken());
		firstReader.unlock();
		assertThat(writer.tryLock()).as("a writer while a reader reads").isFalse();
		secondReader.unlock();
		assertThat(writer.tryLock()).isTrue();
		assertThat(writer.fencingToken()).isGreaterThan(readToken);
		assertThat(firstReader.tryLock()).as("a reader while the writer writes").isFalse();
		assertThat(secondRegistry.obtain(NAME).tryLock()).as("a second writer").isFalse();
		writer.unlock();
		assertNothingLeft();
	}

	@Test
	default void waitingWriterKeepsLaterReadersOutAndIsWokenWhenTheEarlierReaderReleases() throws Exception {
		FencedLock earlyReader = registry(LEASE).readWriteLock(NAME).readLock();
		assertThat(earlyReader.tryLock()).isTrue();
		long readToken = earlyReader.fencingToken();
		FencedLock writer = registry(LEASE).readWriteLock(NAME).writeLock();
		BlockingQueue<String> grants = grantMessages();
		TestThread writing = thread("writer");
		CompletableFuture<Long> written = writing.call(() -> holdAndRelease(writer, Duration.ofSeconds(20)));
		writing.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		FencedLock lateReader = registry(LEASE).readWriteLock(NAME).readLock();
		assertThat(lateReader.tryLock(Duration.ofMillis(200))).as("a reader behind the waiting writer").isFalse();
		TestThread reading = thread("late-reader");
		CompletableFuture<Long> read = reading.call(() -> holdAndRelease(lateReader, Duration.ofSeconds(20)));
		reading.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		assertThat(grants).as("messages before the early reader's release").isEmpty();
		earlyReader.unlock();
		long writeToken = written.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(writeToken).isGreaterThan(readToken);
		assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(writeToken);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(grants).as("the messages that woke the writer, then the late reader")
				.containsExactly(KEY, KEY));
		assertNothingLeft();
	}

	@Test
	default void writeHolderTakesTheReadLockAndNoWriterOfItsOwnProcessGetsTheLockWhileItReads() throws Exception {
		RedisLockRegistry registry = registry(LEASE);
		FencedReadWriteLock lock = registry.readWriteLock(NAME);
		lock.writeLock().lock();
		long writeToken = lock.writeLock().fencingToken();
		TestThread waiting = thread("next-writer");
		CompletableFuture<Long> written = waiting
			.call(() -> holdAndRelease(registry.readWriteLock(NAME).writeLock(), Duration.ofSeconds(20)));
		waiting.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		assertThat(lock.readLock().tryLock()).as("downgrade").isTrue();
		assertThat(lock.readLock().fencingToken()).isGreaterThan(writeToken);
		lock.writeLock().unlock();
		assertThat(keyCommands().exists(KEY)).as("the lock, neither handed over nor granted").isZero();
		assertThat(registry.readWriteLock(NAME).writeLock().isHeldByCurrentThread()).isFalse();
		assertThat(registry(LEASE).readWriteLock(NAME).writeLock().tryLock()).as("another writer").isFalse();
		lock.readLock().unlock();
		assertThat(written.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(writeToken);
		assertNothingLeft();
	}

	@Test
	default void threadHoldingOnlyTheReadLockCannotTakeTheWriteLock() {
		RedisLockRegistry registry = registry(LEASE);
		FencedReadWriteLock lock = registry.readWriteLock(NAME);
		lock.readLock().lock();
		String message = "Thread '" + Thread.currentThread().getName()
				+ "' holds the read lock of 'catalogue' and cannot take its write lock, which would wait for its own "
				+ "read share: a read lock cannot be upgraded; release it first";
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock.writeLock()::lock)
			.withMessage(message);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock.writeLock()::tryLock)
			.withMessage(message);
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> registry.obtain(NAME).tryLock(Duration.ofSeconds(5)))
			.withMessage(message);
		assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
		lock.readLock().unlock();
		assertThat(lock.writeLock().tryLock()).isTrue();
		assertThat(lock.readLock().tryLock()).isTrue();
		assertThat(lock.writeLock().tryLock()).as("a reentry of the write lock it holds").isTrue();
		lock.writeLock().unlock();
		lock.writeLock().unlock();
		lock.readLock().unlock();
		assertNothingLeft();
	}

	@Test
	default void readLockIsReentrantOnTheOwningThreadWithoutARoundTrip() throws Exception {
		FencedLock reader = registry(LEASE).readWriteLock(NAME).readLock();
		reader.lock();
		long token = reader.fencingToken();
		List<CommandStats> stats = commandStats();
		stats.forEach(CommandStats::reset);
		reader.lock();
		assertThat(reader.tryLock()).isTrue();
		assertThat(reader.fencingToken()).isEqualTo(token);
		assertThat(reader.currentHold().fencingToken()).isEqualTo(token);
		reader.unlock();
		reader.unlock();
		assertThat(stats).as("scripts run")
			.allSatisfy((server) -> assertThat(server.calls()).doesNotContainKeys("evalsha", "eval"));
		assertThat(reader.isHeldByCurrentThread()).isTrue();
		assertThat(thread("other-thread").call(reader::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isFalse();
		reader.unlock();
		assertThat(reader.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(reader::unlock)
			.withMessage("Read lock 'catalogue' is not held by thread '" + Thread.currentThread().getName() + "'");
		assertNothingLeft();
	}

	@Test
	default void watchdogKeepsAReadShareThroughThreeLeases() throws Exception {
		Duration lease = Duration.ofMillis(500);
		TestLockRegistry holder = testRegistry(lease);
		FencedLock rivalWriter = registry(lease).readWriteLock(NAME).writeLock();
		FencedLock reader = holder.registry().readWriteLock(NAME).readLock();
		reader.lock();
		// A first renewal with the lease to spare: Redis caches the script and the JVM
		// loads what its first send needs, which on a busy machine takes a while
		holder.registry().renewLeases();
		long end = System.nanoTime() + lease.multipliedBy(3).toNanos();
		while (System.nanoTime() < end) {
			assertThat(rivalWriter.tryLock()).as("a writer while the share is renewed").isFalse();
			Thread.sleep(50);
		}
		assertThat(reader.currentHold().isValid()).isTrue();
		reader.unlock();
		assertThat(holder.lostEvents()).isEmpty();
		assertNothingLeft();
	}

	@Test
	default void renewalThatFindsAReadShareGoneReportsItLostAndItsReleaseThrows() {
		TestLockRegistry holder = testRegistry(LEASE);
		FencedLock reader = holder.registry().readWriteLock(NAME).readLock();
		reader.lock();
		long token = reader.fencingToken();
		keyCommands().del(HoldKind.READ_SHARE.heldKey(id()));
		holder.registry().renewLeases();
		assertThat(reader.currentHold().isValid()).isFalse();
		await().atMost(WAIT).untilAsserted(() -> assertThat(holder.lostEvents()).singleElement().satisfies((event) -> {
			assertThat(event.name()).isEqualTo(NAME);
			assertThat(event.key()).isEqualTo(KEY);
			assertThat(event.fencingToken()).isEqualTo(token);
		}));
		assertThat(holder.registry().heldLocks()).isEmpty();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(reader::unlock)
			.withMessage("Lock 'catalogue' was lost before its release (fencing token " + token + ")");
		assertThat(reader.isHeldByCurrentThread()).isFalse();
		assertThat(holder.lostEvents()).hasSize(1);
		assertNothingLeft();
	}

	/**
	 * Take a lock within the given time, release it, and return its fencing token.
	 */
	private static long holdAndRelease(FencedLock lock, Duration waitTime) {
		assertThat(lock.tryLock(waitTime)).as("%s taken", lock).isTrue();
		try {
			return lock.fencingToken();
		}
		finally {
			lock.unlock();
		}
	}

	private TestThread thread(String name) {
		return closer().add(TestThread.start(name));
	}

	/**
	 * Return the command statistics of every server that may hold a lock.
	 */
	private List<CommandStats> commandStats() {
		return serverUris().stream()
			.map((uri) -> new CommandStats(closer().add(RedisTestClient.connect(uri, WAIT)).sync()))
			.toList();
	}

	/**
	 * Listen to the messages that grant locks to the waiters of every registry, or wake
	 * them, from now on.
	 * @return the messages received: the keys of the locks granted or released
	 */
	private BlockingQueue<String> grantMessages() {
		BlockingQueue<String> messages = new LinkedBlockingQueue<>();
		RedisClient client = RedisClient.create(serverUris().get(0));
		closer().add(() -> client.shutdown(Duration.ZERO, Duration.ZERO));
		StatefulRedisPubSubConnection<String, String> connection = closer().add(client.connectPubSub());
		connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String pattern, String channel, String message) {
				messages.add(message);
			}

		});
		connection.sync().psubscribe("lock:!grants:*");
		return messages;
	}

	private void assertNothingLeft() {
		LockId id = id();
		assertThat(keyCommands().exists(KEY, HoldKind.READ_SHARE.heldKey(id), LockKeys.helperKey(KEY, LockKeys.QUEUE),
				LockKeys.helperKey(KEY, LockKeys.WAITERS)))
			.as("keys left")
			.isZero();
	}

	private static LockId id() {
		return new LockId(LockName.of(NAME), KEY);
	}

}
