package dev.distlock.aop;

import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What releasing the locks of a call found out, once every lock was released: a lock lost
 * while held, and a release that failed otherwise, such as Redis not answering.
 *
 * @param lost the loss found, if any lock had been lost
 * @param failure the first release that failed for another reason, with later ones
 * suppressed
 */
record ReleaseOutcome(@Nullable LockLostException lost, @Nullable RuntimeException failure) {

	private static final Log logger = LogFactory.getLog(ReleaseOutcome.class);

	/** Nothing to report. */
	static final ReleaseOutcome NONE = new ReleaseOutcome(null, null);

	/**
	 * Return what the call throws after the release: what the lost-lock policy makes of
	 * the loss and of the method's failure, else the release failure. A method's failure
	 * wins and carries the release failure as suppressed.
	 * @param policy what to do about a loss
	 * @param spec the method's spec
	 * @param methodFailure what the method threw, or {@code null} if it returned
	 * @return the exception to throw instead of the result, or {@code null} to go on
	 */
	@Nullable Throwable thrown(LostLockPolicy policy, LockSpec spec, @Nullable Throwable methodFailure) {
		Throwable thrown = policy.apply(spec, this.lost, methodFailure);
		if (this.failure == null) {
			return thrown;
		}
		if (thrown == null) {
			return this.failure;
		}
		thrown.addSuppressed(this.failure);
		return thrown;
	}

	/**
	 * Log what a release that nobody waits for found out.
	 * @param spec the method's spec
	 * @param when when the locks were released, such as "after the surrounding
	 * transaction completed"
	 */
	void log(LockSpec spec, String when) {
		if (this.lost != null) {
			logger.warn("Lock of " + spec.description() + " was found lost on its release " + when, this.lost);
		}
		if (this.failure != null) {
			logger.warn("Locks of " + spec.description() + " were released " + when
					+ ", but Redis did not confirm every release; a lock it was not told of expires with its lease",
					this.failure);
		}
	}

}
