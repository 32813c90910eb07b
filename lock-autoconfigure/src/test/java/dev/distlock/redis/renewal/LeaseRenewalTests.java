package dev.distlock.redis.renewal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.distlock.thread.DaemonThreads;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The renewals {@link LeaseRenewal#renewAt} sends at their time (the take-ups of holds
 * started on a grant's message): one of a hold whose release is still on its way to Redis
 * is sent, since that release may reach Redis after the hold's validity without it; one
 * of a hold whose release Redis answered is not.
 */
@Timeout(10)
class LeaseRenewalTests {

	private final BlockingQueue<Hold> renewed = new LinkedBlockingQueue<>();

	private final LeaseRenewal<Hold> renewal = new LeaseRenewal<>(new HoldRenewer<>() {

		@Override
		public Object batchOf(Hold hold) {
			return "all";
		}

		@Override
		public List<CompletableFuture<List<Long>>> renew(List<RenewalBatch<Hold>> batches) {
			List<CompletableFuture<List<Long>>> replies = new ArrayList<>();
			for (RenewalBatch<Hold> batch : batches) {
				LeaseRenewalTests.this.renewed.addAll(batch.holds());
				replies.add(CompletableFuture.completedFuture(Collections.nCopies(batch.holds().size(), 1L)));
			}
			return replies;
		}

		@Override
		public List<Long> await(CompletableFuture<List<Long>> reply, String what) {
			return reply.join();
		}

	}, Duration.ofSeconds(30), new LossHandler<>() {

		@Override
		public void lost(Hold hold, String reason) {
		}

		@Override
		public void renewalFailed(Hold hold, String reason) {
		}

	}, DaemonThreads::named);

	@AfterEach
	void close() {
		this.renewal.close();
	}

	@Test
	void holdReleasedWhileItsReleaseIsOnItsWayIsRenewedAtItsTime() throws Exception {
		Hold hold = new Hold(true);
		this.renewal.renewAt(hold, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
		assertThat(this.renewed.poll(5, TimeUnit.SECONDS)).isSameAs(hold);
		assertThat(hold.extended.await(5, TimeUnit.SECONDS)).as("renewal recorded").isTrue();
	}

	@Test
	void holdWhoseReleaseRedisAnsweredIsNotRenewedAtItsTime() throws Exception {
		Hold hold = new Hold(false);
		this.renewal.renewAt(hold, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
		assertThat(hold.asked.await(5, TimeUnit.SECONDS)).as("asked whether released").isTrue();
		Thread.sleep(100);
		assertThat(this.renewed).isEmpty();
	}

	/**
	 * A hold in watchdog mode released in this JVM, whose release Redis has or has not
	 * answered.
	 */
	private static final class Hold implements RenewedHold {

		final CountDownLatch asked = new CountDownLatch(1);

		final CountDownLatch extended = new CountDownLatch(1);

		private final boolean releasing;

		Hold(boolean releasing) {
			this.releasing = releasing;
		}

		@Override
		public String lockName() {
			return "job";
		}

		@Override
		public boolean isHeld() {
			return false;
		}

		@Override
		public boolean isReleasing() {
			this.asked.countDown();
			return this.releasing;
		}

		@Override
		public boolean isRenewed() {
			return true;
		}

		@Override
		public LeaseTerms terms() {
			return new LeaseTerms(30_000, 0);
		}

		@Override
		public long validUntilNanos() {
			return System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		}

		@Override
		public void extend(long sentNanos, LeaseTerms sentTerms) {
			this.extended.countDown();
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
