package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.HoldKind;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import dev.distlock.LockRegistryContract;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The behavioural contract of the {@link RedisLockRegistry}, written once and run on
 * every Redis deployment distlock supports: a subclass per deployment (standalone,
 * Sentinel, Cluster) connects registries and a plain client to it, and a subclass of that
 * per {@link TestDriver} runs it through Spring Data Redis on Jedis. Each registry stands
 * for one application instance.
 *
 * <p>
 * The registry-agnostic {@link LockRegistryContract} runs with it, on the registries this
 * class connects; this class adds what only Redis shows: the keys, queues and messages
 * the registries leave in Redis, the round trips they take, the reserved names, and the
 * hand-overs within one instance. The contracts of read/write locks and of lease
 * extensions in Redis run with it too ({@link ReadWriteLockContract},
 * {@link LeaseExtensionContract}).
 */
@Timeout(60)
abstract class RedisLockRegistryContract implements ReadWriteLockContract, LeaseExtensionContract {

	private final Closer closer = new Closer();

	private Keys keys;

	/**
	 * Return how the registries talk to Redis: Lettuce's own client unless a subclass
	 * runs the contract on another driver.
	 * @return the driver
	 */
	protected TestDriver driver() {
		return TestDriver.LETTUCE;
	}

	/**
	 * Connect a registry, as one application instance would, to the deployment.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry; the contract closes it
	 */
	protected abstract TestLockRegistry connect(Duration leaseTime);

	/**
	 * Empty the deployment of every key, and connect a plain client to it to look at the
	 * keys the registries write.
	 * @param closer closes the client after the test
	 * @return the client's key and string commands
	 */
	protected abstract Keys connectKeys(Closer closer);

	@BeforeEach
	void connectKeys() {
		this.keys = connectKeys(this.closer);
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	/**
	 * The waiters of other instances leave no wait queue behind in Redis once they had
	 * the lock.
	 */
	@Test
	@Override
	public void waitersOfOtherInstancesGetTheLockInTheOrderTheyCame() throws Exception {
		ReadWriteLockContract.super.waitersOfOtherInstancesGetTheLockInTheOrderTheyCame();
		assertThat(this.keys.keys().exists("lock:order", queueKey("lock:order"), waitersKey("lock:order"))).isZero();
	}

	@Test
	void queuedThreadsOfOneInstanceTakeTheLockOverEachWithItsOwnToken() throws Exception {
		LockLease held = registry(LEASE).acquire("order", Duration.ZERO);
		RedisLockRegistry registry = registry(LEASE);
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<TestThread> threads = new ArrayList<>();
		List<CompletableFuture<Void>> done = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			TestThread thread = this.closer.add(TestThread.start("queued-" + i));
			threads.add(thread);
			done.add(thread.run(() -> {
				FencedLock lock = registry.obtain("order");
				lock.lock();
				try {
					tokens.add(lock.fencingToken());
				}
				finally {
					lock.unlock();
				}
			}));
		}
		await().atMost(WAIT).until(() -> threads.stream().allMatch((thread) -> thread.isIn("dev.distlock.redis.")));
		held.release();
		CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
		assertThat(tokens).hasSize(3).doesNotHaveDuplicates().allMatch((token) -> token > held.fencingToken());
		assertThat(this.keys.keys().exists("lock:order")).isZero();
	}

	@Test
	void waiterThatGivesUpLeavesTheQueueAndTryLockWithoutWaitingNeverJoinsIt() {
		LockLease held = registry(LEASE).acquire("order", Duration.ZERO);
		RedisLockRegistry waiting = registry(LEASE);
		assertThat(waiting.obtain("order").tryLock()).isFalse();
		assertThat(this.keys.keys().exists(queueKey("lock:order"), waitersKey("lock:order"))).isZero();
		assertThat(waiting.tryAcquire("order", Duration.ofMillis(300))).isEmpty();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(this.keys.keys().exists(queueKey("lock:order"), waitersKey("lock:order")))
				.isZero());
		held.release();
		assertThat(this.keys.keys().exists("lock:order")).isZero();
	}

	@Test
	void renewalThatFindsAnotherHolderMarksTheLeaseLostAndReleaseLeavesTheNewKey() {
		TestLockRegistry holder = testRegistry(LEASE);
		LockLease lease = holder.registry().acquire("job", Duration.ZERO);
		this.keys.strings().set("lock:job", "someone-else");
		holder.registry().renewLeases();
		assertThat(lease.isValid()).isFalse();
		await().atMost(WAIT).untilAsserted(() -> assertThat(holder.lostEvents()).singleElement().satisfies((event) -> {
			assertThat(event.name()).isEqualTo("job");
			assertThat(event.key()).isEqualTo("lock:job");
			assertThat(event.fencingToken()).isEqualTo(lease.fencingToken());
		}));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessageContaining("Lock 'job' was lost before its release");
		assertThat(this.keys.strings().get("lock:job")).isEqualTo("someone-else");
		assertThat(holder.lostEvents()).hasSize(1);
	}

	@Test
	void namesWithAnExclamationMarkAreRejected() {
		RedisLockRegistry registry = registry(LEASE);
		String message = "Lock name 'orders!eu' contains '!', which is reserved for distlock's helper keys";
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain("orders!eu")).withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.tryAcquire("orders!eu", Duration.ZERO))
			.withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("orders!eu", Duration.ZERO))
			.withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.semaphore("orders!eu", 1)).withMessage(message);
	}

	@Test
	void isLockedAndRemainingLeaseTakeOneScriptCall() {
		RedisLockRegistry registry = registry(LEASE);
		registry.acquire("order", Duration.ZERO);
		assertThat(registry.isLocked("order")).as("the script cached").isTrue();
		List<CommandStats> stats = commandStats();
		stats.forEach(CommandStats::reset);
		assertThat(registry.isLocked("order")).isTrue();
		assertThat(registry.remainingLease("order")).isPresent();
		// The commands a script runs are counted too, so only the script calls are looked
		// at
		assertThat(stats.stream().mapToLong((server) -> server.calls().getOrDefault("evalsha", 0L)).sum()).isEqualTo(2);
		assertThat(stats).allSatisfy((server) -> assertThat(server.calls()).doesNotContainKey("eval"));
	}

	/**
	 * A semaphore's permits leave nothing behind in Redis once released.
	 */
	@Test
	@Override
	public void semaphoreAdmitsAtMostItsPermitsAcrossInstances() {
		ReadWriteLockContract.super.semaphoreAdmitsAtMostItsPermitsAcrossInstances();
		assertThat(this.keys.keys().exists(permitsKey("lock:pool"), queueKey("lock:pool"), waitersKey("lock:pool")))
			.isZero();
	}

	/**
	 * The waiters of a semaphore leave nothing behind in Redis once they had a permit.
	 */
	@Test
	@Override
	public void semaphoreWaitersAreWokenByAReleaseAndAdmittedInTheOrderTheyCame() throws Exception {
		ReadWriteLockContract.super.semaphoreWaitersAreWokenByAReleaseAndAdmittedInTheOrderTheyCame();
		assertThat(this.keys.keys().exists(permitsKey("lock:pool"), queueKey("lock:pool"), waitersKey("lock:pool")))
			.isZero();
	}

	@Test
	void tryForAPermitWithoutWaitingNeverQueues() {
		LockLease permit = registry(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		assertThat(registry(LEASE).semaphore("pool", 1).tryAcquire(Duration.ZERO)).isEmpty();
		assertThat(this.keys.keys().exists(queueKey("lock:pool"), waitersKey("lock:pool"))).isZero();
		permit.release();
	}

	@Test
	void heldLocksListPermitsAndReadSharesUntilLostAndTheirLossNamesTheLockKey() {
		TestLockRegistry holder = testRegistry(LEASE);
		RedisLockRegistry registry = holder.registry();
		LockLease permit = registry.semaphore("pool", 1).acquire(Duration.ZERO);
		assertThat(registry.heldLocks()).singleElement().satisfies((held) -> {
			assertThat(held.name()).isEqualTo("pool");
			assertThat(held.key()).isEqualTo(permitsKey("lock:pool"));
			assertThat(held.fencingToken()).isEqualTo(permit.fencingToken());
			assertThat(held.holdKind()).isEqualTo(HoldKind.PERMIT);
			assertThat(held.kind()).isEqualTo("permit");
		});
		expire(registry, "pool");
		await().atMost(WAIT).until(() -> !permit.isValid());
		assertThat(registry.heldLocks()).isEmpty();
		FencedLock reader = registry.readWriteLock("catalogue").readLock();
		reader.lock();
		LockLease share = reader.currentHold();
		assertThat(registry.heldLocks()).singleElement().satisfies((held) -> {
			assertThat(held.holdKind()).isEqualTo(HoldKind.READ_SHARE);
			assertThat(held.kind()).isEqualTo("shared");
			assertThat(held.key()).isEqualTo(LockKeys.heldKey(lockId("catalogue"), HoldKind.READ_SHARE));
		});
		expire(registry, "catalogue");
		await().atMost(WAIT).until(() -> !share.isValid());
		assertThat(registry.heldLocks()).isEmpty();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(holder.lostEvents()).extracting(LockLostEvent::key)
				.containsExactly("lock:pool", "lock:catalogue"));
	}

	private static String queueKey(String lockKey) {
		return LockKeys.helperKey(lockKey, LockKeys.QUEUE);
	}

	private static String waitersKey(String lockKey) {
		return LockKeys.helperKey(lockKey, LockKeys.WAITERS);
	}

	private static String permitsKey(String semaphoreKey) {
		return LockKeys.helperKey(semaphoreKey, LockKeys.PERMITS);
	}

	private static LockId lockId(String name) {
		return new LockId(LockName.of(name), "lock:" + name);
	}

	/**
	 * Connect a registry; one with a lease shorter than {@link #LEASE} renews a lock and
	 * a permit once first, so that Redis caches the renew scripts and the JVM loads the
	 * classes of their first send, which on a busy machine took longer than a short
	 * lease.
	 */
	@Override
	public LockRegistry instance(Duration leaseTime) {
		RedisLockRegistry registry = registry(leaseTime);
		if (leaseTime.compareTo(LEASE) < 0) {
			LockLease lock = registry.acquire("warm-up", Duration.ZERO);
			LockLease permit = registry.semaphore("warm-up-pool", 1).acquire(Duration.ZERO);
			registry.renewLeases();
			lock.release();
			permit.release();
		}
		return registry;
	}

	/**
	 * Release the lock whoever holds it, as an operator would, and delete the read shares
	 * and permits of its name, which a force release leaves alone; then renew the
	 * holder's leases, which finds its hold gone.
	 */
	@Override
	public void expire(LockRegistry holder, String name) {
		RedisLockRegistry registry = (RedisLockRegistry) holder;
		registry.forceRelease(name);
		LockId id = lockId(name);
		this.keys.keys().del(LockKeys.heldKey(id, HoldKind.READ_SHARE), LockKeys.heldKey(id, HoldKind.PERMIT));
		registry.renewLeases();
	}

	@Override
	public void awaitWaiting(TestThread thread) {
		thread.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
	}

	@Override
	public RedisLockRegistry registry(Duration leaseTime) {
		return testRegistry(leaseTime).registry();
	}

	@Override
	public RedisKeyCommands<String, String> keyCommands() {
		return this.keys.keys();
	}

	@Override
	public Closer closer() {
		return this.closer;
	}

	@Override
	public TestLockRegistry testRegistry(Duration leaseTime) {
		return this.closer.add(connect(leaseTime));
	}

	/**
	 * The commands of a plain client that the contract looks at keys with.
	 *
	 * @param keys key commands, such as {@code EXISTS} and {@code PTTL}
	 * @param strings string commands, such as {@code GET} and {@code SET}
	 */
	protected record Keys(RedisKeyCommands<String, String> keys, RedisStringCommands<String, String> strings) {

	}

}
