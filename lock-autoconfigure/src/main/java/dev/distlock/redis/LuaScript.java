package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.HoldKind;
import dev.distlock.redis.connection.Script;

/**
 * A Lua script of the lock engine, loaded from {@code .lua} resources beside this class,
 * with the SHA-1 digest that {@code EVALSHA} names it by. A script takes the functions it
 * shares with others from a line {@code --#include <resource>}, which stands for the text
 * of that resource (each says what it holds). Lua defines a {@code local function} when
 * it runs its statement, so a script answers its most frequent case (an uncontended
 * acquire, the release of a lock nobody waits for) before its later includes, without
 * defining the functions they hold. A resource is included once: a later line that names
 * it again adds nothing.
 *
 * @param source the script text
 * @param sha1 the hex SHA-1 digest of the text
 */
record LuaScript(String source, String sha1) implements Script {

	private static final Pattern INCLUDE = Pattern.compile("^--#include (\\S+)\\R", Pattern.MULTILINE);

	static final LuaScript ACQUIRE = load("acquire.lua");

	static final LuaScript RELEASE = load("release.lua");

	static final LuaScript READ_ACQUIRE = load("read-acquire.lua");

	static final LuaScript READ_RELEASE = load("read-release.lua");

	static final LuaScript ACQUIRE_ON_QUORUM = load("uptime-check.lua", "token-floor.lua", "acquire.lua");

	static final LuaScript RAISE_FENCE = load("raise-fence.lua");

	static final LuaScript RENEW = load("renew.lua");

	static final LuaScript RENEW_SHARES = load("renew-shares.lua");

	static final LuaScript TRANSFER = load("transfer.lua");

	static final LuaScript TRANSFER_ON_QUORUM = load("token-floor.lua", "transfer.lua");

	static final LuaScript RELEASE_SHARE = load("release-share.lua");

	static final LuaScript ACQUIRE_PERMIT = load("acquire-permit.lua");

	static final LuaScript LOCK_STATE = load("lock-state.lua");

	static final LuaScript FORCE_RELEASE = load("force-release.lua");

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
	 * Load a script: the given resources one after the other, includes resolved.
	 */
	private static LuaScript load(String... resources) {
		StringBuilder texts = new StringBuilder();
		for (String resource : resources) {
			texts.append(read(resource));
		}
		Matcher include = INCLUDE.matcher(texts);
		StringBuilder source = new StringBuilder();
		Set<String> included = new HashSet<>();
		while (include.find()) {
			String text = included.add(include.group(1)) ? read(include.group(1)) : "";
			include.appendReplacement(source, Matcher.quoteReplacement(text));
		}
		include.appendTail(source);
		return of(source.toString());
	}

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
