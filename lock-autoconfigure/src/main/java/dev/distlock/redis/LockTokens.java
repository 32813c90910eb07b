package dev.distlock.redis;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Issues the random tokens that identify one hold of a lock: 128 bits from a
 * {@link SecureRandom} per thread, so that threads do not contend on one generator.
 */
final class LockTokens {

	private static final int TOKEN_BYTES = 16;

	private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(LockTokens::newRandom);

	private LockTokens() {
	}

	/**
	 * Return a new token: 32 hex digits.
	 * @return the token
	 */
	static String next() {
		byte[] bytes = new byte[TOKEN_BYTES];
		RANDOM.get().nextBytes(bytes);
		return HexFormat.of().formatHex(bytes);
	}

	private static SecureRandom newRandom() {
		try {
			return SecureRandom.getInstance("DRBG");
		}
		catch (NoSuchAlgorithmException ex) {
			return new SecureRandom();
		}
	}

}
