package dev.distlock.redis;

/**
 * Told when a hold turns out to be lost, to mark it and report it once.
 */
@FunctionalInterface
interface LossHandler {

	/**
	 * Mark the hold lost and report it, unless it was released or reported already; then
	 * run its loss actions.
	 * @param hold the hold
	 * @param reason why it is lost, for the report
	 */
	void lost(RedisHold hold, String reason);

}
