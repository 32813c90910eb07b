package dev.distlock.redis.connection;

/**
 * A Lua script that a {@link LockConnection} runs: named by the SHA-1 digest of its text
 * ({@code EVALSHA}) and sent whole ({@code EVAL}) when Redis does not have it cached.
 *
 * @since 0.1.0
 */
public interface Script {

	/**
	 * Return the script's text.
	 * @return the Lua source
	 */
	String source();

	/**
	 * Return the hex SHA-1 digest of the script's text, which {@code EVALSHA} names it
	 * by.
	 * @return the digest, 40 lower-case hex digits
	 */
	String sha1();

}
