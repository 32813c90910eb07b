package dev.distlock.sample;

import java.time.Duration;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.autoconfigure.DistLockJdbcFenceAutoConfiguration;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.sample.ledger.Ledger;
import dev.distlock.sample.ledger.LedgerBalance;
import dev.distlock.test.LockFaults;
import dev.distlock.test.autoconfigure.InMemoryDistLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.context.annotation.FilterType;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A slice test of the ledger: its two beans on an embedded database, its
 * {@code @DistributedLock} and its fence, with the locks kept in the JVM
 * ({@code distlock.store=in-memory}), so that no Redis runs. Each post commits on its
 * own, as in the application: a post in a test's transaction would keep its lock until
 * that transaction ends.
 */
// tag::in-memory-slice[]
@JdbcTest(properties = "distlock.store=in-memory")
@ImportAutoConfiguration({ AopAutoConfiguration.class, InMemoryDistLockAutoConfiguration.class,
		DistLockInterceptionAutoConfiguration.class, DistLockJdbcFenceAutoConfiguration.class })
// end::in-memory-slice[]
@ComponentScan(basePackageClasses = Ledger.class, useDefaultFilters = false,
		includeFilters = @Filter(type = FilterType.REGEX, pattern = ".*\\.Ledger(Table)?"))
@Transactional(propagation = Propagation.NOT_SUPPORTED)
@Timeout(30)
class LedgerSliceTests {

	@Autowired
	private Ledger ledger;

	@Autowired
	private LockRegistry locks;

	@Test
	void postsUnderTheAccountsLockWithIncreasingFencingTokens() {
		LedgerBalance first = this.ledger.post("initech", 100);
		LedgerBalance second = this.ledger.post("initech", -30);
		assertThat(second.balance()).isEqualTo(70);
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(this.locks.isLocked(Ledger.lockName("initech"))).isFalse();
	}

	@Test
	void holderWhoseLockWasLostCannotPostAfterTheNextHolder() {
		LockLease stale = this.locks.acquire(Ledger.lockName("acme"), Duration.ZERO);
		LockFaults.expire(this.locks, Ledger.lockName("acme"));
		assertThat(stale.isValid()).isFalse();
		this.ledger.post("acme", 100);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.ledger.post("acme", 5, stale.fencingToken()));
		assertThat(this.ledger.balance("acme"))
			.hasValueSatisfying((balance) -> assertThat(balance.balance()).isEqualTo(100));
	}

}
