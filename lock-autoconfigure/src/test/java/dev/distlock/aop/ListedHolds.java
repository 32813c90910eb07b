package dev.distlock.aop;

import dev.distlock.LockContext;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;

/**
 * How a registry's list of held locks shows the lease of the current annotated call.
 */
final class ListedHolds {

	private ListedHolds() {
	}

	/**
	 * Return the name and kind under which the registry lists the current call's lease,
	 * such as {@code catalog:shared}.
	 * @param introspector the registry
	 * @return {@code name:kind}, or {@code not listed}
	 */
	static String currentLeaseAsListed(LockIntrospector introspector) {
		LockLease lease = LockContext.currentLease().orElseThrow();
		return introspector.heldLocks()
			.stream()
			.filter((held) -> held.fencingToken() == lease.fencingToken())
			.map((held) -> held.name() + ":" + held.kind())
			.findFirst()
			.orElse("not listed");
	}

}
