package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.distlock.HoldKind;
import dev.distlock.redis.connection.Script;

/**
 * A Lua script of the lock engine, loaded from {@code .lua} resources beside this class,
 * with the SHA-1 digest that {@code EVALSHA} names it by. The scripts that issue fencing
 * tokens start with the text of {@code fencing-tokens.lua}; those that touch a lock's
 * wait queue, with the text of {@code wait-queue.lua}, which keeps the queue and grants
 * the lock to its first waiter; those that take or release shared holds, or a lock, which
 * is the write side of the read/write lock of its name and must know its readers, with
 * both and the text of {@code shared-holds.lua}. On a node of a Redlock quorum, the
 * acquire script runs after the text of {@code uptime-check.lua}, which refuses while the
 * node is younger than a lease.
 *
 * @param source the script text
 * @param sha1 the hex SHA-1 digest of the text
 */
record LuaScript(String source, String sha1) implements Script {

	private static final String FENCING_TOKENS = "fencing-tokens.lua";

	private static final String WAIT_QUEUE = "wait-queue.lua";

	private static final String SHARED_HOLDS = "shared-holds.lua";

	static final LuaScript ACQUIRE = sharedHolds("acquire.lua");

	static final LuaScript ACQUIRE_IF_UP = load(FENCING_TOKENS, WAIT_QUEUE, SHARED_HOLDS, "uptime-check.lua",
			"acquire.lua");

	static final LuaScript RAISE_FENCE = load("raise-fence.lua");

	static final LuaScript RELEASE = sharedHolds("release.lua");

	static final LuaScript READ_ACQUIRE = sharedHolds("read-acquire.lua");

	static final LuaScript READ_RELEASE = sharedHolds("read-release.lua");

	static final LuaScript RENEW = load("renew.lua");

	static final LuaScript RENEW_SHARES = load("renew-shares.lua");

	static final LuaScript TRANSFER = load(FENCING_TOKENS, WAIT_QUEUE, "transfer.lua");

	static final LuaScript RELEASE_SHARE = sharedHolds("release-share.lua");

	static final LuaScript ACQUIRE_PERMIT = sharedHolds("acquire-permit.lua");

	static final LuaScript LOCK_STATE = load("lock-state.lua");

	static final LuaScript FORCE_RELEASE = sharedHolds("force-release.lua");

	/**
	 * Return the script that renews holds of the given kind.
	 */
	static LuaScript renew(HoldKind kind) {
		return (kind == HoldKind.EXCLUSIVE) ? RENEW : RENEW_SHARES;
	}

	/**
	 * Return the script that releases a hold of the given kind, or gives back the token
	 * of a caller that gave up waiting for one.
	 */
	static LuaScript release(HoldKind kind) {
		return switch (kind) {
			case EXCLUSIVE -> RELEASE;
			case READ_SHARE -> READ_RELEASE;
			case PERMIT -> RELEASE_SHARE;
		};
	}

	/**
	 * Load a script that takes or releases shared holds, or a lock: the given resource
	 * after the texts of {@code fencing-tokens.lua}, {@code wait-queue.lua} and
	 * {@code shared-holds.lua}, whose functions admit the caller to the set of holders or
	 * queue it, and count the holders.
	 * @param resource the script's own text, beside this class
	 */
	static LuaScript sharedHolds(String resource) {
		return load(FENCING_TOKENS, WAIT_QUEUE, SHARED_HOLDS, resource);
	}

	/**
	 * Load a script made of the given resources, in order.
	 */
	private static LuaScript load(String... resources) {
		StringBuilder source = new StringBuilder();
		for (String resource : resources) {
			source.append(read(resource));
		}
		return of(source.toString());
	}

	/**
	 * Return a script of the given text.
	 * @param source the script text
	 */
	private static LuaScript of(String source) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
			return new LuaScript(source, HexFormat.of().formatHex(digest));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String read(String resource) {
		try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Lua script '" + resource + "' is missing from the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
