package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The actions to run once when a hold is found lost
 * ({@link dev.distlock.LockLease#onLoss}). An action added before the loss runs on the
 * thread that found it, one added after runs at once on the thread that adds it; a
 * release of a hold not found lost drops them. A completion stage keeps that promise
 * without a lock: an action runs exactly once if the hold is found lost, however its
 * addition and the loss interleave. A release completes it with {@code null} rather than
 * cancelling it, which would create an exception on every release.
 */
final class LossActions {

	private static final Log logger = LogFactory.getLog(LossActions.class);

	/** The loss, or {@code null} once the hold was released first. */
	private final CompletableFuture<@Nullable LockLostException> loss = new CompletableFuture<>();

	/**
	 * Add an action; one that throws is logged.
	 */
	void add(Consumer<? super LockLostException> action) {
		this.loss.thenAccept((lost) -> {
			if (lost == null) {
				return;
			}
			try {
				action.accept(lost);
			}
			catch (RuntimeException | Error ex) {
				logger.error("A loss action of lock '" + lost.getLockName() + "' failed", ex);
			}
		});
	}

	/**
	 * Run the actions: the hold was found lost. Called holding no lock of the engine.
	 */
	void run(LockLostException lost) {
		this.loss.complete(lost);
	}

	/**
	 * Drop the actions: the hold was released before it was found lost.
	 */
	void drop() {
		this.loss.complete(null);
	}

}
