package dev.distlock.docs;

import java.util.Map;

import dev.distlock.DistributedLock;
import dev.distlock.LockMode;

/**
 * The user guide's catalog: any number of readers at once on every instance, and a
 * replacement alone.
 */
// tag::shared-mode[]
public class Catalog {

	private volatile Map<String, Long> prices = Map.of();

	@DistributedLock(name = "catalog", mode = LockMode.SHARED, waitTime = "2s")
	public Map<String, Long> read() { // many at once
		return this.prices;
	}

	@DistributedLock(name = "catalog", waitTime = "2s")
	public void replace(Map<String, Long> prices) { // alone
		this.prices = Map.copyOf(prices);
	}

}
// end::shared-mode[]
