package dev.distlock.leader;

/**
 * How far the first election since a {@link LockLeadership} started got.
 */
enum Election {

	/** Its first attempt is under way. */
	TRYING,

	/** The registry failed the attempts so far, and the candidate keeps trying. */
	FAILING,

	/** This instance leads, or another holds the lock and this one is a standby. */
	DECIDED

}
