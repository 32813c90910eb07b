package dev.distlock.aop;

import java.util.List;

import dev.distlock.HeldLock;
import dev.distlock.LockContext;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;
import dev.distlock.test.InMemoryLockRegistry;

/**
 * How a registry's list of held locks shows the lease of the current annotated call.
 */
final class ListedHolds {

	private ListedHolds() {
	}

	/**
	 * Return the names of the locks, shares and permits the registry holds.
	 * @param introspector the registry
	 * @return the names, sorted
	 */
	static List<String> names(LockIntrospector introspector) {
		return introspector.heldLocks().stream().map(HeldLock::name).sorted().toList();
	}

	/**
	 * Make every hold of the registry lost, as if its lease ran out: its name is free
	 * again, it is no longer valid, its loss is reported, and its release throws
	 * {@link dev.distlock.LockLostException}.
	 * @param registry the registry
	 */
	static void loseAll(InMemoryLockRegistry registry) {
		names(registry).forEach(registry::forceRelease);
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
