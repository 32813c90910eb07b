package dev.distlock.redis.renewal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How the checks of fixed leases meet an extension: one that starts while the check of a
 * hold renewed meanwhile runs goes ahead, one that starts after the check found the lease
 * run out does not, and a hold watched again is checked once.
 */
@Timeout(10)
class LeaseExpiriesTests {

	private static final String CHECKER = "lease-expiry-check";

	private static final String LOST = "its fixed lease of 1000 ms ran out while it was held";

	private final List<String> losses = new CopyOnWriteArrayList<>();

	private final LeaseExpiries<Hold> expiries = new LeaseExpiries<>(new LossHandler<>() {

		@Override
		public void lost(Hold hold, String reason) {
			LeaseExpiriesTests.this.losses.add(reason);
		}

		@Override
		public void renewalFailed(Hold hold, String reason) {
		}

	}, (task) -> new Thread(task, CHECKER));

	@AfterEach
	void close() {
		this.expiries.close();
	}

	@Test
	void holdRenewedWhileItsCheckRunsMayBeExtended() throws Exception {
		Hold hold = new Hold(Duration.ofMillis(50));
		hold.pauseNextCheck();
		this.expiries.add(hold);
		assertThat(hold.checking.await(5, TimeUnit.SECONDS)).as("checked").isTrue();
		// Its grant was taken up meanwhile, with a renewal of the whole lease
		hold.validFor(Duration.ofSeconds(30));
		assertThat(this.expiries.remove(hold)).as("may be extended").isTrue();
		hold.goOn.countDown();
		// The check found it renewed and watches it again (asking twice whether it is
		// held)
		await().atMost(Duration.ofSeconds(5)).until(() -> hold.heldAskedByChecker.get() == 2);
		hold.validFor(Duration.ofMillis(50));
		this.expiries.watchAgain(hold);
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.losses.isEmpty());
		assertThat(this.losses).containsExactly(LOST);
	}

	@Test
	void holdWatchedAgainIsCheckedOnce() throws Exception {
		Hold hold = new Hold(Duration.ofMillis(50));
		this.expiries.add(hold);
		this.expiries.watchAgain(hold);
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.losses.isEmpty());
		Thread.sleep(100);
		assertThat(this.losses).containsExactly(LOST);
	}

	@Test
	void holdWhoseLeaseTheCheckFoundRunOutMayNotBeExtended() throws Exception {
		Hold hold = new Hold(Duration.ofMillis(20));
		this.expiries.add(hold);
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.losses.isEmpty());
		assertThat(this.expiries.remove(hold)).isFalse();
		assertThat(this.losses).containsExactly(LOST);
	}

	/**
	 * A held fixed-lease hold whose validity the test sets, and whose check can be made
	 * to wait while reading it.
	 */
	private static final class Hold implements RenewedHold {

		final CountDownLatch checking = new CountDownLatch(1);

		final CountDownLatch goOn = new CountDownLatch(1);

		final AtomicInteger heldAskedByChecker = new AtomicInteger();

		private volatile long validUntilNanos;

		private volatile boolean pauseCheck;

		Hold(Duration validity) {
			validFor(validity);
		}

		void validFor(Duration validity) {
			this.validUntilNanos = System.nanoTime() + validity.toNanos();
		}

		void pauseNextCheck() {
			this.pauseCheck = true;
		}

		@Override
		public long validUntilNanos() {
			if (this.pauseCheck && Thread.currentThread().getName().equals(CHECKER)) {
				this.pauseCheck = false;
				this.checking.countDown();
				try {
					this.goOn.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return this.validUntilNanos;
		}

		@Override
		public String lockName() {
			return "job";
		}

		@Override
		public boolean isHeld() {
			if (Thread.currentThread().getName().equals(CHECKER)) {
				this.heldAskedByChecker.incrementAndGet();
			}
			return true;
		}

		@Override
		public boolean isReleasing() {
			return false;
		}

		@Override
		public boolean isRenewed() {
			return false;
		}

		@Override
		public LeaseTerms terms() {
			return new LeaseTerms(1_000, 0);
		}

		@Override
		public void extend(long sentNanos, LeaseTerms sentTerms) {
		}

		@Override
		public @Nullable String renewalFailure() {
			return null;
		}

		@Override
		public void renewalFailure(@Nullable String failure) {
		}

	}

}
