package dev.distlock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BlockingInMonitorRule}: distlock's compiled main classes keep it, and
 * the classes of {@link MonitorRuleSamples} that break it on purpose are each reported.
 */
@Timeout(60)
class BlockingInMonitorRuleTests {

	private static final String SAMPLES = MonitorRuleSamples.class.getName();

	@Test
	void noMainClassBlocksInsideAMonitor() throws IOException {
		Path classes = mainClasses().resolve("dev/distlock");
		List<Path> classFiles;
		try (Stream<Path> files = Files.walk(classes)) {
			classFiles = files.filter((file) -> file.toString().endsWith(".class")).toList();
		}
		assertThat(classFiles).as("scanned")
			.contains(classes.resolve("redis/ReleaseSignals.class"), classes.resolve("aop/SubscriptionLocks.class"));
		List<byte[]> bytes = new ArrayList<>();
		for (Path classFile : classFiles) {
			bytes.add(Files.readAllBytes(classFile));
		}
		BlockingInMonitorRule rule = BlockingInMonitorRule.scan(bytes, getClass().getClassLoader());
		assertThat(rule.callsInsideMonitors()).as("calls the rule checked")
			.contains("dev.distlock.aop.SubscriptionLocks.end calls dev.distlock.aop.SubscriptionLocks.take");
		assertThat(rule.violations()).as("methods that block inside a monitor").isEmpty();
	}

	@Test
	void everySampleThatBlocksInsideAMonitorIsReportedAndTheOneThatDoesNotIsNot() {
		List<byte[]> bytes = new ArrayList<>();
		bytes.add(classFile(MonitorRuleSamples.class));
		for (Class<?> sample : MonitorRuleSamples.class.getDeclaredClasses()) {
			bytes.add(classFile(sample));
		}
		BlockingInMonitorRule rule = BlockingInMonitorRule.scan(bytes, getClass().getClassLoader());
		assertThat(rule.violations()).containsExactlyInAnyOrder(
				SAMPLES + "$SleepsInASynchronizedMethod.run blocks inside a monitor: calls java.lang.Thread.sleep",
				SAMPLES + "$WaitsForANotification.run waits on a monitor: calls java.lang.Object.wait",
				SAMPLES + "$JoinsAFutureInASynchronizedBlock.run blocks inside a monitor: "
						+ "calls java.util.concurrent.CompletableFuture.join",
				SAMPLES + "$TakesALockInASynchronizedBlock.run blocks inside a monitor: "
						+ "calls java.util.concurrent.locks.Lock.lock",
				SAMPLES + "$ParksAfterLeavingAnInnerMonitor.run blocks inside a monitor: "
						+ "calls java.util.concurrent.locks.LockSupport.parkNanos",
				SAMPLES + "$BlocksThroughAHelper.run blocks inside a monitor: calls " + SAMPLES
						+ "$BlocksThroughAHelper.takePermit, which calls java.util.concurrent.Semaphore.acquire",
				SAMPLES + "$BlocksThroughAnInterface.run blocks inside a monitor: calls " + SAMPLES
						+ "$LatchGate.pass, which calls java.util.concurrent.CountDownLatch.await",
				SAMPLES + "$BlocksThroughAMethodReference.run blocks inside a monitor: calls "
						+ "java.util.concurrent.Callable.call, which may run " + SAMPLES
						+ "$BlocksThroughAMethodReference.takePermit, which calls java.util.concurrent.Semaphore.tryAcquire");
		assertThat(rule.callsInsideMonitors()).as("calls checked in the sample that keeps the rule")
			.contains(SAMPLES + "$BlocksOnlyOutsideMonitors.run calls java.util.concurrent.locks.Lock.tryLock",
					SAMPLES + "$BlocksOnlyOutsideMonitors.run calls java.util.concurrent.locks.Lock.unlock")
			.doesNotContain(SAMPLES + "$BlocksOnlyOutsideMonitors.run calls java.lang.Thread.sleep",
					SAMPLES + "$BlocksOnlyOutsideMonitors.run calls java.util.concurrent.locks.Lock.lock");
	}

	private static byte[] classFile(Class<?> type) {
		String resource = "/" + type.getName().replace('.', '/') + ".class";
		try (InputStream in = type.getResourceAsStream(resource)) {
			assertThat(in).as(resource).isNotNull();
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path mainClasses() {
		try {
			return Path.of(LockRegistry.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
