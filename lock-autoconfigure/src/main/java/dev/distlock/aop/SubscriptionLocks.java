package dev.distlock.aop;

import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

/**
 * The locks of one subscription to a reactive result. The acquisition and the end of the
 * subscription may come in either order, on different threads; whichever comes second
 * releases the locks, so that a subscription cancelled while its locks were being
 * acquired does not keep them. Each lock is released once.
 */
final class SubscriptionLocks {

	private final LockSpec spec;

	private @Nullable CallLocks locks;

	/** The locks acquired for this subscription, kept after their release. */
	private @Nullable CallLocks acquired;

	private boolean ended;

	SubscriptionLocks(LockSpec spec) {
		this.spec = spec;
	}

	/**
	 * Acquire the locks for this subscription, releasing them at once if it ended
	 * meanwhile. An acquisition that fails after the subscription ended, typically
	 * interrupted by the cancellation, fails quietly: nobody waits for it.
	 * @param acquisition acquires the locks, returning {@code null} when they were not
	 * acquired
	 * @return whether the locks are held for the subscription
	 */
	boolean acquire(Supplier<@Nullable CallLocks> acquisition) {
		CallLocks acquired;
		try {
			acquired = acquisition.get();
		}
		catch (RuntimeException ex) {
			if (hasEnded()) {
				return false;
			}
			throw ex;
		}
		if (acquired == null) {
			return false;
		}
		synchronized (this) {
			if (!this.ended) {
				this.locks = acquired;
				this.acquired = acquired;
				return true;
			}
		}
		releaseAfterEnd(acquired);
		return false;
	}

	/**
	 * Run the method for this subscription with its leases in {@link LockContext}, as a
	 * synchronous method runs.
	 * @param call runs the method and returns its result
	 * @return the method's result
	 */
	Publisher<?> run(Supplier<Publisher<?>> call) {
		CallLocks held = acquired();
		if (held == null) {
			return call.get();
		}
		try (LockContext.Binding binding = LockContext.bind(held.leases())) {
			return call.get();
		}
	}

	/**
	 * Run the given action when one of this subscription's locks is found lost while
	 * held.
	 * @param action told of the loss
	 * @see CallLocks#onLoss
	 */
	void onLoss(Consumer<? super LockLostException> action) {
		CallLocks held = acquired();
		if (held != null) {
			held.onLoss(action);
		}
	}

	/**
	 * Release the locks if they are still held.
	 * @return what the release found out
	 */
	ReleaseOutcome release() {
		CallLocks held = take();
		return (held != null) ? held.release() : ReleaseOutcome.NONE;
	}

	/**
	 * End the subscription: release the locks if they are still held, and those of an
	 * acquisition still running when it finishes.
	 */
	void end() {
		CallLocks held;
		synchronized (this) {
			this.ended = true;
			held = take();
		}
		if (held != null) {
			releaseAfterEnd(held);
		}
	}

	private synchronized @Nullable CallLocks acquired() {
		return this.acquired;
	}

	private synchronized boolean hasEnded() {
		return this.ended;
	}

	private synchronized @Nullable CallLocks take() {
		CallLocks held = this.locks;
		this.locks = null;
		return held;
	}

	private void releaseAfterEnd(CallLocks held) {
		held.release().log(this.spec, "after the subscription ended");
	}

}
