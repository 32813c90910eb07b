package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.HoldKind;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The holds of read/write locks are measured like locks: the waits and holds of both
 * sides, the waits in vain and the lost read shares, under the lock's base name.
 */
@Timeout(30)
class ReadWriteLockMetricsTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private final SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void readAndWriteHoldsAreMeasuredUnderTheBaseNameOfTheLock() {
		RedisLockRegistry registry = this.closer.add(TestLockRegistry.create(redis.server().uri(),
				TestLockRegistry.settings(Duration.ofSeconds(30)), TestLockRegistry.meteredBy(this.meterRegistry)))
			.registry();
		FencedReadWriteLock seven = registry.readWriteLock(LockName.keyed("catalogue", "7"));
		seven.readLock().lock();
		seven.readLock().unlock();
		seven.writeLock().lock();
		seven.writeLock().unlock();
		FencedLock rivalWriter = this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30)))
			.registry()
			.readWriteLock(LockName.keyed("catalogue", "8"))
			.writeLock();
		assertThat(rivalWriter.tryLock()).isTrue();
		assertThat(registry.readWriteLock(LockName.keyed("catalogue", "8")).readLock().tryLock()).isFalse();
		rivalWriter.unlock();
		FencedLock lostReader = registry.readWriteLock(LockName.keyed("catalogue", "9")).readLock();
		lostReader.lock();
		this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5)))
			.sync()
			.del(LockKeys.heldKey(new LockId(LockName.of("catalogue:9"), "lock:catalogue:9"), HoldKind.READ_SHARE));
		registry.renewLeases();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lostReader::unlock);
		assertThat(this.meterRegistry.getMeters()).extracting(Meter::getId)
			.extracting((id) -> id.getName() + id.getTags())
			.containsExactlyInAnyOrder("distlock.wait[tag(name=catalogue), tag(result=acquired)]",
					"distlock.wait[tag(name=catalogue), tag(result=failed)]",
					"distlock.hold[tag(name=catalogue), tag(result=released)]",
					"distlock.hold[tag(name=catalogue), tag(result=lost)]", "distlock.lost[tag(name=catalogue)]");
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "acquired").timer().count()).isEqualTo(3);
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "failed").timer().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.hold").tag("result", "released").timer().count()).isEqualTo(2);
		assertThat(this.meterRegistry.get("distlock.hold").tag("result", "lost").timer().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.lost").counter().count()).isOne();
	}

}
