package dev.distlock.redis;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Issues the random tokens that identify one hold of a lock: 128 bits from a
 * {@link SecureRandom}. The generators are pooled: a thread takes one, draws its token
 * and puts it back, so that threads do not contend on one generator, and the pool holds
 * as many as threads ever drew at the same moment. A generator per thread would cost a
 * virtual thread, which usually lives for one task, the seeding of a generator of its own
 * for every token.
 */
final class LockTokens {

	private static final int TOKEN_BYTES = 16;

	private static final Queue<SecureRandom> GENERATORS = new ConcurrentLinkedQueue<>();

	private LockTokens() {
	}

	/**
	 * Return a new token: 32 hex digits.
	 */
	static String next() {
		SecureRandom random = Objects.requireNonNullElseGet(GENERATORS.poll(), LockTokens::newRandom);
		byte[] bytes = new byte[TOKEN_BYTES];
		random.nextBytes(bytes);
		GENERATORS.offer(random);
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
