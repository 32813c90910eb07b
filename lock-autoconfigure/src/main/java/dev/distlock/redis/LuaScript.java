package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script loaded from a {@code .lua} resource beside this class, with the SHA-1
 * digest that {@code EVALSHA} names it by.
 *
 * @param source the script text
 * @param sha1 the hex SHA-1 digest of the text
 */
record LuaScript(String source, String sha1) {

	static final LuaScript ACQUIRE = load("acquire.lua");

	static final LuaScript RELEASE = load("release.lua");

	static final LuaScript RENEW = load("renew.lua");

	static final LuaScript TRANSFER = load("transfer.lua");

	private static LuaScript load(String resource) {
		try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Lua script '" + resource + "' is missing from the classpath");
			}
			String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
			return new LuaScript(source, HexFormat.of().formatHex(digest));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
