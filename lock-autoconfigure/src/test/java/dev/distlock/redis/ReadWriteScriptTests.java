package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.HoldKind;
import dev.distlock.LockName;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import dev.distlock.testsupport.LettuceClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scripts of a read/write lock, run one by one on a real {@code redis-server}: the
 * write side (the lock scripts) waits for live read shares and grants nothing while they
 * last, readers wait behind a queued writer, a grant of the lock to a reader becomes a
 * share that wakes the reader behind it, and shares of dead readers and shares kept for
 * their lock delay keep writers out exactly as long as they should.
 */
@Timeout(30)
class ReadWriteScriptTests {

	private static final LeaseTerms TERMS = new LeaseTerms(30_000, 0);

	private static final LockId CATALOGUE = new LockId(LockName.of("catalogue"), "lock:catalogue");

	private static final String CHANNEL = "lock:!grants:test";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private BlockingQueue<String> published;

	private RedisCommands<String, String> redisCommands;

	private RedisLockCommands commands;

	@BeforeEach
	void connect() {
		this.redisCommands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5)))
			.sync();
		this.redisCommands.flushall();
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		this.published = TestLockRegistry.grantMessages(client, this.closer);
		this.commands = this.closer.add(TestLockRegistry.commands(client));
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void readersShareAndAQueuedWriterKeepsLaterReadersOutUntilTheLastReaderGrantsItTheLock() {
		long first = read("reader-1", waiting());
		long second = read("reader-2", waiting());
		assertThat(second).isGreaterThan(first);
		assertThat(write("writer", waiting())).as("a writer waits for the readers").isNotPositive();
		assertThat(read("reader-3", waiting())).as("a reader behind the queued writer").isNotPositive();
		assertThat(releaseRead("reader-1")).isTrue();
		assertThat(this.redisCommands.exists(CATALOGUE.key)).as("granted while a reader is left").isZero();
		assertThat(releaseRead("reader-2")).isTrue();
		assertThat(this.redisCommands.get(CATALOGUE.key)).as("granted by the last reader").isEqualTo("writer");
		assertThat(write("writer", waiting())).as("the grant taken up").isGreaterThan(second);
		assertThat(read("reader-3", waiting())).as("a reader while the writer holds the lock").isNotPositive();
	}

	@Test
	void aWriterThatGivesUpWhileReadersHoldTheLockWakesTheReaderItKeptOut() throws Exception {
		read("reader-1", waiting());
		write("writer", waiting());
		read("reader-2", waiting());
		this.published.clear();
		assertThat(write("writer", Queueing.NONE)).isNotPositive();
		assertThat(this.published.poll(5, TimeUnit.SECONDS)).isEqualTo(CATALOGUE.key);
		assertThat(read("reader-2", waiting())).isPositive();
		assertThat(TestLockRegistry.waitersOf(this.redisCommands, CATALOGUE.key)).isZero();
	}

	@Test
	void aGrantOfTheLockToAReaderBecomesAShareThatWakesTheReaderBehindIt() throws Exception {
		write("writer", waiting());
		read("reader-1", waiting());
		read("reader-2", waiting());
		write("next-writer", waiting());
		assertThat(release("writer")).isTrue();
		assertThat(this.redisCommands.get(CATALOGUE.key)).isEqualTo("reader-1");
		assertThat(this.published.poll(5, TimeUnit.SECONDS)).as("the grant's message")
			.startsWith(CATALOGUE.key + LockName.RESERVED + "reader-1 ");
		assertThat(read("reader-1", waiting())).isPositive();
		assertThat(this.redisCommands.exists(CATALOGUE.key)).as("the grant turned into a share").isZero();
		assertThat(this.published.poll(5, TimeUnit.SECONDS)).as("the reader behind woken").isEqualTo(CATALOGUE.key);
		assertThat(read("reader-2", waiting())).isPositive();
		assertThat(this.redisCommands.zcard(readersKey())).isEqualTo(2);
		assertThat(write("next-writer", waiting())).as("the writer behind the readers").isNotPositive();
	}

	@Test
	void theWriteHoldersOwnThreadReadsAtOnceAndItsWriteReleaseGrantsNothingWhileItReads() throws Exception {
		long write = write("writer", waiting());
		write("next-writer", waiting());
		long read = read("downgrade", TERMS, "writer");
		assertThat(read).as("admitted past the queued writer").isGreaterThan(write);
		assertThat(read("other-reader", Queueing.NONE)).isNotPositive();
		this.published.clear();
		assertThat(release("writer")).isTrue();
		assertThat(this.redisCommands.exists(CATALOGUE.key)).as("nothing granted").isZero();
		assertThat(this.published.poll(5, TimeUnit.SECONDS)).as("the first waiter woken").isEqualTo(CATALOGUE.key);
		assertThat(write("next-writer", waiting())).isNotPositive();
		assertThat(releaseRead("downgrade")).isTrue();
		assertThat(this.redisCommands.get(CATALOGUE.key)).isEqualTo("next-writer");
	}

	@Test
	void theShareOfADeadReaderKeepsWritersOutUntilItExpires() throws Exception {
		long read = read("dead-reader", new LeaseTerms(200, 0), "");
		assertThat(read).isPositive();
		assertThat(write("writer", waiting())).isNotPositive();
		Thread.sleep(250);
		assertThat(write("writer", waiting())).isGreaterThan(read);
		assertThat(this.redisCommands.exists(readersKey())).as("the expired share dropped").isZero();
	}

	@Test
	void aShareReleasedAfterItsLeaseKeepsWritersOutForItsLockDelayAndCannotBeRenewed() throws Exception {
		LeaseTerms terms = new LeaseTerms(200, 400);
		read("reader", terms, "");
		Thread.sleep(250);
		assertThat(this.commands.await(this.commands.releaseShare(CATALOGUE, HoldKind.READ_SHARE, "reader", 400, false),
				"release"))
			.as("released within the lock delay: held, but with its lease over")
			.isFalse();
		assertThat(this.redisCommands.pttl(readersKey())).as("the kept share's life").isBetween(1L, 400L);
		assertThat(this.commands.await(this.commands
			.renew(List.of(new HoldRenewals.Renewal(HoldKind.READ_SHARE, List.of(CATALOGUE), List.of("reader"), terms)))
			.get(0), "renew")).containsExactly(0L);
		assertThat(write("writer", Queueing.NONE)).isNotPositive();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> write("writer", Queueing.NONE) > 0);
		assertThat(this.redisCommands.exists(readersKey())).isZero();
	}

	@Test
	void aReaderThatGivesUpPassesOnAGrantOfTheLock() {
		write("writer", waiting());
		read("reader", waiting());
		write("next-writer", waiting());
		release("writer");
		assertThat(this.redisCommands.get(CATALOGUE.key)).isEqualTo("reader");
		this.commands.giveBack(CATALOGUE, HoldKind.READ_SHARE, "reader", TERMS);
		assertThat(releaseRead("absent")).isFalse();
		assertThat(this.redisCommands.get(CATALOGUE.key)).isEqualTo("next-writer");
	}

	private long read(String token, Queueing queueing) {
		return this.commands
			.await(this.commands.acquireShare(SharedAttempt.read(CATALOGUE, ""), token, TERMS, queueing), "read")
			.reply();
	}

	private long read(String token, LeaseTerms terms, String writeToken) {
		return this.commands
			.await(this.commands.acquireShare(SharedAttempt.read(CATALOGUE, writeToken), token, terms, waiting()),
					"read")
			.reply();
	}

	private boolean releaseRead(String token) {
		return this.commands.await(this.commands.releaseShare(CATALOGUE, HoldKind.READ_SHARE, token, 0, false),
				"release");
	}

	private long write(String token, Queueing queueing) {
		return this.commands.await(this.commands.acquire(CATALOGUE, token, TERMS, queueing), "write").reply();
	}

	private boolean release(String token) {
		return this.commands.await(this.commands.release(CATALOGUE, token, 0, 0, false), "release");
	}

	private static Queueing waiting() {
		return new Queueing(true, RedisAcquirer.ENTRY_MILLIS, RedisAcquirer.CLAIM_MILLIS, CHANNEL, 1);
	}

	private static String readersKey() {
		return LockKeys.heldKey(CATALOGUE, HoldKind.READ_SHARE);
	}

}
