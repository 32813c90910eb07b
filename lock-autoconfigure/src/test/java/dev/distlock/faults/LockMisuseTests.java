package dev.distlock.faults;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.distlock.FencedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Misuse of the programmatic API and the message a user sees: unlocking a lock another
 * thread holds, releasing twice, interrupting a waiting thread, and releasing a lease on
 * another thread than the one that took it (which works).
 */
@Timeout(60)
class LockMisuseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private ExecutorService otherThread;

	private RedisCommands<String, String> commands;

	private LockRegistry registry;

	private LockRegistry rival;

	@BeforeEach
	void setUp() {
		this.otherThread = Executors.newSingleThreadExecutor((task) -> new Thread(task, "other-thread"));
		this.closer.add(this.otherThread::shutdownNow);
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
		this.registry = this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30)))
			.registry();
		this.rival = this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))).registry();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrowsAndLeavesTheHolderAlone() throws Exception {
		FencedLock lock = this.registry.obtain("inventory");
		assertThat(lock.tryLock()).isTrue();
		Throwable thrown = onOtherThread(() -> lock.unlock());
		assertThat(thrown).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessage("Lock 'inventory' is not held by thread 'other-thread'");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(this.commands.exists("lock:inventory")).isOne();
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock)
			.withMessage("Lock 'inventory' is not held by thread '" + Thread.currentThread().getName() + "'");
	}

	@Test
	void releasingALeaseTwiceDoesNothingTheSecondTime() {
		LockLease lease = this.registry.acquire("report", Duration.ZERO);
		lease.release();
		LockLease next = this.rival.acquire("report", Duration.ZERO);
		String nextToken = this.commands.get("lock:report");
		lease.release();
		lease.close();
		assertThat(lease.isValid()).isFalse();
		assertThat(next.isValid()).isTrue();
		assertThat(this.commands.get("lock:report")).as("the next holder's key").isEqualTo(nextToken);
		next.release();
	}

	@Test
	void interruptingAThreadWaitingForALeaseThrowsAndKeepsItsInterruptFlag() throws Exception {
		assertInterruptible((name) -> this.registry.acquire(name, Duration.ofSeconds(10)));
	}

	@Test
	void interruptingAThreadWaitingInTryLockThrowsAndKeepsItsInterruptFlag() throws Exception {
		assertInterruptible((name) -> this.registry.obtain(name).tryLock(Duration.ofSeconds(10)));
	}

	@Test
	void leaseTakenOnOneThreadIsReleasedOnAnother() throws Exception {
		LockLease lease = this.registry.acquire("async", Duration.ZERO);
		assertThat(onOtherThread(lease::release)).isNull();
		assertThat(lease.isValid()).isFalse();
		assertThat(this.commands.exists("lock:async")).isZero();
	}

	@Test
	void currentHoldOfAThreadOwnedLockCannotBeReleasedOnAnotherThread() throws Exception {
		FencedLock lock = this.registry.obtain("owned");
		assertThat(lock.tryLock()).isTrue();
		LockLease hold = lock.currentHold();
		assertThat(onOtherThread(hold::release)).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessage("Lock 'owned' is not held by thread 'other-thread'");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(this.commands.exists("lock:owned")).isZero();
	}

	private void assertInterruptible(Consumer<String> waitFor) throws Exception {
		String name = "interrupted";
		LockLease held = this.rival.acquire(name, Duration.ZERO);
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		AtomicBoolean flagKept = new AtomicBoolean();
		Thread waiter = new Thread(() -> {
			try {
				waitFor.accept(name);
			}
			catch (Throwable ex) {
				thrown.set(ex);
			}
			flagKept.set(Thread.currentThread().isInterrupted());
		}, "waiter");
		waiter.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.commands.pubsubNumsub("lock:" + name).get("lock:" + name) == 1L);
		long interruptedNanos = System.nanoTime();
		waiter.interrupt();
		waiter.join(TimeUnit.SECONDS.toMillis(5));
		assertThat(waiter.isAlive()).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - interruptedNanos)).isLessThan(Duration.ofSeconds(1));
		assertThat(thrown.get()).isInstanceOf(LockAcquisitionException.class)
			.hasMessage("Interrupted while waiting for lock 'interrupted'")
			.hasCauseInstanceOf(InterruptedException.class);
		assertThat(flagKept).as("interrupt flag kept").isTrue();
		assertThat(held.isValid()).isTrue();
		held.release();
	}

	private @Nullable Throwable onOtherThread(Action action) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				action.run();
				return null;
			}
			catch (Throwable ex) {
				return ex;
			}
		}, this.otherThread).get(10, TimeUnit.SECONDS);
	}

	/**
	 * Something to run on another thread.
	 */
	@FunctionalInterface
	interface Action {

		void run() throws Exception;

	}

}
