package dev.distlock.redis;

import org.jspecify.annotations.Nullable;

/**
 * How a hold is kept in Redis, which decides how the watchdog renews it: an exclusive
 * hold is its lock key holding its token; a shared hold is its token's entry in a set of
 * holders beside the lock key (a sorted set scored by each entry's expiry in server
 * milliseconds), which many holders share.
 */
enum HoldKind {

	/** The lock key holds the token: a lock, or the write side of a read/write lock. */
	EXCLUSIVE(LuaScript.RENEW, LuaScript.RELEASE, null, "exclusive"),

	/** A reader's share of a read/write lock, in the set of its readers. */
	READ_SHARE(LuaScript.RENEW_SHARES, LuaScript.READ_RELEASE, LockKeys.READERS, "shared"),

	/** A permit of a semaphore, in the set of its permit holders. */
	PERMIT(LuaScript.RENEW_SHARES, LuaScript.RELEASE_SHARE, LockKeys.PERMITS, "permit");

	/** The script that renews holds of this kind. */
	final LuaScript renewScript;

	/**
	 * The script that releases a hold of this kind, or gives back the token of a caller
	 * that gave up waiting for one.
	 */
	final LuaScript releaseScript;

	private final @Nullable String holdersRole;

	/** How the kind is shown in the list of held locks. */
	final String label;

	HoldKind(LuaScript renewScript, LuaScript releaseScript, @Nullable String holdersRole, String label) {
		this.renewScript = renewScript;
		this.releaseScript = releaseScript;
		this.holdersRole = holdersRole;
		this.label = label;
	}

	/**
	 * Return the key a hold of this kind is kept under: the lock key itself, or the set
	 * of holders beside it.
	 * @param id the lock, read/write lock or semaphore held
	 */
	String heldKey(LockId id) {
		return (this.holdersRole != null) ? LockKeys.helperKey(id.key, this.holdersRole) : id.key;
	}

}
