package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A pass-on's confirmation must reach Redis before anything its successor sends. Sent
 * with {@code EVALSHA} while Redis did not have the renew script cached (a fresh or
 * restarted server), it was sent again with {@code EVAL} only after the {@code NOSCRIPT}
 * reply, behind the successor's release: the confirmation then found the key gone and the
 * releasing thread threw {@code LockLostException} for a lock it had held and handed over
 * correctly.
 */
@Timeout(60)
class PassOnOrderTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	/**
	 * The server is paused while A hands the lock over to B and B releases it, so that
	 * both commands are queued before Redis answers either.
	 */
	@Test
	void passOnConfirmationIsNotOvertakenByTheSuccessorsReleaseWhenRedisForgotTheScript() throws Exception {
		this.commands.scriptFlush();
		RedisLockRegistry rival = registry();
		RedisLockRegistry registry = registry();
		LockLease held = rival.acquire("order", Duration.ZERO);
		CountDownLatch aHolds = new CountDownLatch(1);
		CountDownLatch aMayRelease = new CountDownLatch(1);
		AtomicReference<Throwable> aFailure = new AtomicReference<>();
		AtomicReference<Throwable> bFailure = new AtomicReference<>();
		long[] tokens = new long[2];
		Thread a = new Thread(() -> {
			FencedLock lock = registry.obtain("order");
			try {
				assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
				tokens[0] = lock.fencingToken();
				aHolds.countDown();
				aMayRelease.await();
				lock.unlock();
			}
			catch (Throwable ex) {
				aFailure.set(ex);
			}
		}, "A");
		Thread b = new Thread(() -> {
			FencedLock lock = registry.obtain("order");
			try {
				assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
				tokens[1] = lock.fencingToken();
				lock.unlock();
			}
			catch (Throwable ex) {
				bFailure.set(ex);
			}
		}, "B");
		a.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:order") == 1L);
		b.start();
		// B queued on A's permit, so that A reserves a token for it
		Thread.sleep(200);
		held.release();
		assertThat(aHolds.await(5, TimeUnit.SECONDS)).isTrue();
		// B offers to take the lock over and waits in Redis
		Thread.sleep(200);
		assertThat(this.commands.scriptExists(LuaScript.PASS_ON.sha1())).containsExactly(false);
		redis.server().pause();
		try {
			aMayRelease.countDown();
			// A sends EVAL pass-on and completes the offer; B releases with EVALSHA
			// release
			Thread.sleep(300);
		}
		finally {
			redis.server().resume();
		}
		a.join(10_000);
		b.join(10_000);
		assertThat(bFailure.get()).isNull();
		assertThat(aFailure.get()).isNull();
	}

	private RedisLockRegistry registry() {
		TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30));
		this.closer.add(registry);
		return registry.registry();
	}

}
