package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.LeaseOptions;
import dev.distlock.LockName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a {@link RedisHold} is known to be valid when it is passed on within the JVM.
 */
class RedisHoldTests {

	private static final LeaseTerms TERMS = new LeaseTerms(1_000, 0);

	@Test
	void renewalWhoseReplyComesAfterPassOnsExtendsTheLastHoldOfTheChain() {
		long acquired = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(900);
		RedisHold first = new RedisHold(new LockId(LockName.of("job"), "lock:job"), HoldKind.EXCLUSIVE, "token", 1, 3,
				acquired, TERMS, LeaseOptions.WATCHDOG);
		long renewalSent = System.nanoTime();
		RedisHold second = first.passOn(LeaseOptions.WATCHDOG);
		second.markReleased();
		RedisHold third = second.passOn(LeaseOptions.WATCHDOG);
		assertThat(third.validUntilNanos()).isEqualTo(first.validUntilNanos());
		first.extend(renewalSent);
		assertThat(third.validUntilNanos() - renewalSent).isEqualTo(Duration.ofSeconds(1).toNanos());
		assertThat(second.validUntilNanos()).isEqualTo(third.validUntilNanos());
	}

}
