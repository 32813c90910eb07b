package dev.distlock.redis.renewal;

/**
 * Told when a hold turns out to be lost, to mark it and report it once, and when its
 * renewal failed with time left on its lease, to report that.
 *
 * @param <H> the type of the holds
 */
public interface LossHandler<H> {

	/**
	 * Mark the hold lost and report it, unless it was released or reported already; then
	 * run its loss actions.
	 * @param hold the hold
	 * @param reason why it is lost, for the report
	 */
	void lost(H hold, String reason);

	/**
	 * Report that a renewal of the hold failed and left time on its lease, unless it is
	 * no longer held.
	 * @param hold the hold
	 * @param reason why the renewal failed, for the report
	 */
	void renewalFailed(H hold, String reason);

}
