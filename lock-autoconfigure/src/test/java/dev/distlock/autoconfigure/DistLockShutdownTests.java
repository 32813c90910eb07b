package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the shutdown of {@link DistLockAutoConfiguration}'s registry with its
 * application context, on a real {@code redis-server}.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
class DistLockShutdownTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	@Test
	void closesTheRegistrysConnectionsBeforeTheConnectionFactoryShutsItsClientDown(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			try (LockLease lease = registry.acquire("report", Duration.ZERO)) {
				assertThat(registry.tryAcquire("report", Duration.ofMillis(100))).as("waited on release signals")
					.isEmpty();
			}
		});
		// A Jedis Sentinel listener left by an earlier test class of this JVM may still
		// be
		// retrying; only this context's warnings count.
		assertThat(
				output.getAll().lines().filter((line) -> line.contains("WARN") && !line.contains("SentinelListener")))
			.isEmpty();
	}

	@Test
	void releasesTheLocksStillHeldWhenTheContextClosesSoThatTheNextInstanceNeedNotWait() {
		AtomicReference<LockLease> held = new AtomicReference<>();
		AtomicReference<LockLease> permit = new AtomicReference<>();
		AtomicReference<LossListener> listener = new AtomicReference<>();
		this.contextRunner.withBean(LossListener.class).run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			held.set(registry.acquire("report", Duration.ZERO));
			permit.set(registry.semaphore("exports", 1).tryAcquire(Duration.ZERO).orElseThrow());
			listener.set(context.getBean(LossListener.class));
		});
		LockLease lease = held.get();
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5));
				TestLockRegistry next = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			assertThat(client.sync().exists("lock:report")).isZero();
			assertThat(next.registry().tryAcquire("report", Duration.ZERO)).isPresent();
			assertThat(next.registry().semaphore("exports", 1).tryAcquire(Duration.ZERO)).isPresent();
		}
		assertThat(lease.isValid()).isFalse();
		assertThat(permit.get().isValid()).isFalse();
		assertThat(listener.get().losses).extracting(LockLostEvent::name)
			.containsExactlyInAnyOrder("report", "exports");
		assertThat(listener.get().losses).filteredOn((event) -> event.name().equals("report"))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.fencingToken()).isEqualTo(lease.fencingToken());
				assertThat(event.reason()).startsWith("the registry was closed while it was held");
			});
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(permit.get()::release);
	}

	static class LossListener {

		final List<LockLostEvent> losses = new CopyOnWriteArrayList<>();

		@EventListener
		void lost(LockLostEvent event) {
			this.losses.add(event);
		}

	}

}
