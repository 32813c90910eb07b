package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.HeldLock;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A virtual thread that an executor started has no name: the registry names it as a
 * thread dump does, {@code VirtualThread[#<id>]}, where it names a lock's owner. JDK 21
 * and later.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@Timeout(60)
class VirtualThreadOwnerTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void unnamedVirtualThreadIsNamedByItsIdAsTheOwnerOfItsLockAndInUnlockErrors() throws Exception {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			ExecutorService executor = VirtualThreadAccess.newVirtualThreadPerTaskExecutor();
			try {
				List<String> names = executor.submit(() -> {
					String expected = "VirtualThread[#" + Thread.currentThread().getId() + "]";
					FencedLock other = registry.registry().obtain("other");
					assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(other::unlock)
						.withMessage("Lock 'other' is not held by thread '" + expected + "'");
					FencedLock lock = registry.registry().obtain("report");
					lock.lock();
					try {
						return List.of(expected, Thread.currentThread().getName(),
								registry.registry()
									.heldLocks()
									.stream()
									.map(HeldLock::owner)
									.findFirst()
									.orElseThrow());
					}
					finally {
						lock.unlock();
					}
				}).get(30, TimeUnit.SECONDS);
				assertThat(names.get(1)).as("the thread's own name").isEmpty();
				assertThat(names.get(2)).as("the owner of its lock").isEqualTo(names.get(0));
			}
			finally {
				executor.shutdownNow();
			}
		}
	}

}
