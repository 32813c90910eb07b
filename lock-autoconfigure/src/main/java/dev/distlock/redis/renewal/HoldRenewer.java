package dev.distlock.redis.renewal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.DistributedLockException;

/**
 * Renews holds in Redis, many with one command.
 *
 * @param <H> the type of the holds
 */
public interface HoldRenewer<H> {

	/**
	 * Return what the holds that one command may renew together share, besides their
	 * terms: equal for holds of one kind and one Cluster slot (or any key off a cluster).
	 * @param hold the hold
	 * @return the hold's batch, compared with {@link Object#equals}
	 */
	Object batchOf(H hold);

	/**
	 * Send one command per batch, all before awaiting any reply.
	 * @param batches holds of one batch each, with the terms to renew them with
	 * @return per batch, in the order given, one entry per hold, 1 when renewed
	 */
	List<CompletableFuture<List<Long>>> renew(List<RenewalBatch<H>> batches);

	/**
	 * Wait for a reply within the command timeout.
	 * @param reply the reply
	 * @param what the operation, for the error message
	 * @return the reply's value
	 * @throws DistributedLockException if Redis did not answer in time or failed
	 */
	List<Long> await(CompletableFuture<List<Long>> reply, String what);

}
