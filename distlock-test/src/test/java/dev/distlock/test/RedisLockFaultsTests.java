package dev.distlock.test;

import java.time.Duration;
import java.util.function.Supplier;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A Spring Boot test of an application's {@code @DistributedLock} method against a real
 * {@code redis-server} started by {@link RedisServerExtension}, without Docker, as the
 * user guide shows it; {@link LockFaults} makes the method's lock lost while it runs.
 */
@SpringBootTest(classes = RedisLockFaultsTests.ReportApplication.class)
@Timeout(60)
class RedisLockFaultsTests {

	// tag::redis-server-extension[]
	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry properties) {
		properties.add("spring.data.redis.port", () -> redis.server().port());
	}
	// end::redis-server-extension[]

	@Autowired
	private LockRegistry locks;

	@Autowired
	private ReportService reports;

	@Test
	void annotatedMethodLocksOnTheTestsRedis() {
		assertThat(this.locks).isInstanceOf(RedisLockRegistry.class);
		assertThat(this.reports.runWhileHeld(() -> this.locks.isLocked("nightly"))).isTrue();
		assertThat(this.locks.isLocked("nightly")).isFalse();
	}

	@Test
	void lockExpiredWhileTheMethodRunsFailsTheCallWithLockLostException() {
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.reports.runWhileHeld(() -> LockFaults.expire(this.locks, "nightly")));
		assertThat(this.locks.isLocked("nightly")).isFalse();
	}

	@Test
	void expiredLeaseIsNoLongerValidAndTheNextHolderGetsAGreaterToken() {
		LockLease lease = this.locks.acquire("nightly", Duration.ZERO);
		assertThat(LockFaults.expire(this.locks, "nightly")).hasValue(lease.fencingToken());
		assertThat(lease.isValid()).isFalse();
		assertThat(this.locks.acquire("nightly", Duration.ZERO).fencingToken()).isGreaterThan(lease.fencingToken());
	}

	@Test
	void renewalsOfTheRedisRegistryCannotBePaused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockFaults.pauseRenewals(this.locks))
			.withMessageStartingWith("Cannot pause renewals of a dev.distlock.autoconfigure.DistLockAutoConfiguration");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ReportApplication {

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

	}

	static class ReportService {

		@DistributedLock(name = "nightly")
		<T> T runWhileHeld(Supplier<T> work) {
			assertThat(LockContext.currentLease()).hasValueSatisfying((lease) -> assertThat(lease.isValid()).isTrue());
			return work.get();
		}

	}

}
