package dev.distlock.redis;

import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.FencedLock;
import dev.distlock.testsupport.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@value #THREADS} virtual threads contend for {@value #NAMES} lock names through two
 * registries, as two instances of an application would, on each driver. Every lock is
 * acquired, no two holders of a name overlap, fencing tokens increase in the order the
 * holders came, and all finish within a bound; their commands through Spring Data Redis
 * start no platform thread each (on Jedis, one per pooled connection runs them).
 * Meanwhile Flight Recorder records every time a virtual thread is pinned to its carrier:
 * distlock's code may have pinned none (a driver's may: on JDK 21 Jedis' connection pool
 * waits inside a monitor while it grows). JDK 21 and later; on JDK 24 and later a virtual
 * thread that waits inside a monitor is no longer pinned, so the recording there finds
 * only what still pins on every JDK: a wait inside a class initializer, or under a native
 * frame.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@Timeout(300)
class VirtualThreadContentionTests {

	private static final int THREADS = 10_000;

	private static final int NAMES = 100;

	/**
	 * The threads of a first round, not recorded, that initializes distlock's classes: a
	 * virtual thread that waits for another thread's class initializer is pinned on every
	 * JDK, once.
	 */
	private static final int WARM_UP_THREADS = 1_000;

	private static final Duration WAIT_TIME = Duration.ofSeconds(60);

	/**
	 * A command timeout well above any round trip, also on a machine busy with other
	 * work: this test is about waiting, not about timeouts.
	 */
	private static final RedisLockSettings SETTINGS = RedisLockSettings.of("lock:", Duration.ofSeconds(30))
		.withCommandTimeout(Duration.ofSeconds(10));

	private static final Duration FINISH = Duration.ofMinutes(2);

	/**
	 * The connections a registry's Jedis pool lends at once, Commons Pool's default: the
	 * platform threads that run the commands of its virtual threads, one per connection.
	 * The watchdog's rounds take fewer.
	 */
	private static final int POOLED_CONNECTIONS = 8;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void tenThousandVirtualThreadsOnAHundredNamesKeepExclusionFinishAndPinNoCarrierInDistlock(TestDriver driver)
			throws Exception {
		try (TestLockRegistry first = TestLockRegistry.create(driver, redis.server().uri(), SETTINGS);
				TestLockRegistry second = TestLockRegistry.create(driver, redis.server().uri(), SETTINGS)) {
			List<RedisLockRegistry> registries = List.of(first.registry(), second.registry());
			contend(registries, WARM_UP_THREADS, new CriticalSections());
			CriticalSections sections = new CriticalSections();
			List<List<String>> pinned;
			long commandThreads;
			try (PinnedVirtualThreads recording = PinnedVirtualThreads.record()) {
				contend(registries, THREADS, sections);
				pinned = recording.stop();
				commandThreads = Thread.getAllStackTraces()
					.keySet()
					.stream()
					.filter((thread) -> thread.getName().equals("distlock-redis-command"))
					.count();
			}
			assertThat(sections.overlaps).as("holders of one name that overlapped").hasValue(0);
			assertThat(sections.tokensNotIncreasing).as("fencing tokens that did not increase").hasValue(0);
			for (int name = 0; name < NAMES; name++) {
				assertThat(sections.entries.get(name)).as("entries of name " + name).isEqualTo(THREADS / NAMES);
			}
			assertThat(pinned).as("virtual threads pinned by distlock's code")
				.filteredOn(VirtualThreadContentionTests::pinnedByDistlock)
				.isEmpty();
			assertThat(commandThreads).as("platform threads started for the commands of virtual threads")
				.isLessThanOrEqualTo(2 * POOLED_CONNECTIONS);
			assertThat(first.lostEvents()).isEmpty();
			assertThat(second.lostEvents()).isEmpty();
		}
	}

	@Test
	void recordingSeesAVirtualThreadPinnedByAClassInitializerThatParks() throws Exception {
		List<List<String>> pinned;
		try (PinnedVirtualThreads recording = PinnedVirtualThreads.record()) {
			ExecutorService executor = VirtualThreadAccess.newVirtualThreadPerTaskExecutor();
			try {
				executor.submit(ParksWhileInitialized::initialize).get(FINISH.toMillis(), TimeUnit.MILLISECONDS);
			}
			finally {
				executor.shutdownNow();
			}
			pinned = recording.stop();
		}
		assertThat(pinned).anySatisfy((frames) -> assertThat(frames)
			.contains(ParksWhileInitialized.class.getName() + ".<clinit>", LockSupport.class.getName() + ".parkNanos"));
	}

	/**
	 * Run the given number of virtual threads, each taking one name's lock through one of
	 * the registries in turn and running the name's critical section under it.
	 */
	private static void contend(List<RedisLockRegistry> registries, int threads, CriticalSections sections)
			throws Exception {
		ExecutorService executor = VirtualThreadAccess.newVirtualThreadPerTaskExecutor();
		List<Future<?>> holders = new ArrayList<>(threads);
		try {
			for (int i = 0; i < threads; i++) {
				RedisLockRegistry registry = registries.get(i % registries.size());
				int name = (i / registries.size()) % NAMES;
				holders.add(executor.submit(() -> {
					FencedLock lock = registry.obtain("vt:" + name);
					assertThat(lock.tryLock(WAIT_TIME)).as("acquired lock vt:" + name).isTrue();
					try {
						sections.run(name, lock.fencingToken());
					}
					finally {
						lock.unlock();
					}
					return null;
				}));
			}
			executor.shutdown();
			assertThat(executor.awaitTermination(FINISH.toMillis(), TimeUnit.MILLISECONDS))
				.as("all threads finished within " + FINISH)
				.isTrue();
			for (Future<?> holder : holders) {
				holder.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Return whether the innermost frame outside the JDK is distlock's main code: the
	 * code that blocked while pinned, as opposed to the code it was called from.
	 */
	private static boolean pinnedByDistlock(List<String> frames) {
		URL main = RedisLockRegistry.class.getProtectionDomain().getCodeSource().getLocation();
		return frames.stream()
			.filter((frame) -> !frame.startsWith("java.") && !frame.startsWith("jdk.") && !frame.startsWith("sun."))
			.findFirst()
			.map((frame) -> main.equals(codeSourceOf(frame.substring(0, frame.lastIndexOf('.')))))
			.orElse(false);
	}

	private static @Nullable URL codeSourceOf(String className) {
		int lambda = className.indexOf("$$Lambda");
		try {
			Class<?> type = Class.forName((lambda > 0) ? className.substring(0, lambda) : className, false,
					VirtualThreadContentionTests.class.getClassLoader());
			return type.getProtectionDomain().getCodeSource().getLocation();
		}
		catch (ClassNotFoundException ex) {
			return null;
		}
	}

	/**
	 * The critical sections of every name: each counts its entries with a read, a yield
	 * and a write, which loses entries when two holders overlap, and notices the overlap
	 * and a fencing token no greater than the one before.
	 */
	private static final class CriticalSections {

		private final AtomicIntegerArray entries = new AtomicIntegerArray(NAMES);

		private final AtomicIntegerArray inside = new AtomicIntegerArray(NAMES);

		private final AtomicLongArray lastTokens = new AtomicLongArray(NAMES);

		private final AtomicInteger overlaps = new AtomicInteger();

		private final AtomicInteger tokensNotIncreasing = new AtomicInteger();

		void run(int name, long fencingToken) {
			if (this.inside.incrementAndGet(name) != 1) {
				this.overlaps.incrementAndGet();
			}
			if (fencingToken <= this.lastTokens.get(name)) {
				this.tokensNotIncreasing.incrementAndGet();
			}
			this.lastTokens.set(name, fencingToken);
			int seen = this.entries.get(name);
			Thread.yield();
			this.entries.set(name, seen + 1);
			this.inside.decrementAndGet(name);
		}

	}

	/**
	 * A class whose initializer parks the thread that initializes it: that pins a virtual
	 * thread on every JDK that has them.
	 */
	private static final class ParksWhileInitialized {

		static {
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}

		private ParksWhileInitialized() {
		}

		static void initialize() {
		}

	}

}
