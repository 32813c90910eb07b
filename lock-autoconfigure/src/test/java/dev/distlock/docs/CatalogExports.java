package dev.distlock.docs;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.LockContext;

/**
 * The user guide's concurrency limit: at most {@code catalog.exports.limit} exports run
 * at once across every instance.
 */
// tag::concurrency-limit[]
public class CatalogExports {

	@DistributedConcurrencyLimit(name = "catalog-exports", limit = "${catalog.exports.limit}",
			waitTime = "${catalog.exports.wait-time}")
	public long export() {
		// the permit's fencing token
		return LockContext.currentLease().orElseThrow().fencingToken();
	}

}
// end::concurrency-limit[]
