package dev.distlock.redis;

/**
 * Where an acquisition stands in the lock's wait queue while the lock is taken.
 *
 * @param waits whether the caller waits in the queue; otherwise it leaves it
 * @param entryMillis how long the caller's entry lives unless a later acquisition renews
 * it
 * @param claimMillis how long a grant to the caller waits for it to be taken up
 * @param channel the channel on which the caller's process hears its grants; empty when
 * it polls
 * @param attempt the number of the caller's attempt, counted from 1 for each acquisition,
 * which a grant's message names, so that the caller knows which of its attempts came
 * before the grant
 */
record Queueing(boolean waits, long entryMillis, long claimMillis, String channel, long attempt) {

	/** Not waiting: a caller that only tries, or gives up. */
	static final Queueing NONE = new Queueing(false, 0, 0, "", 0);

}
