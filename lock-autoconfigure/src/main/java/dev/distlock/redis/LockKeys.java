package dev.distlock.redis;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.springframework.util.Assert;

/**
 * Maps lock names and key values to Redis keys.
 *
 * <p>
 * A registry name becomes {@code <key-prefix><name>}, nothing else added. A keyed lock's
 * name is {@code <name>:<encoded value>}: letters, digits, {@code -}, {@code _} and
 * {@code .} stay as they are, every other character is percent-encoded as UTF-8, so an
 * encoded value never contains {@code :}, braces or {@code #}, and distinct (name, value)
 * pairs never share a key. Strings that are not well-formed UTF-16 are encoded too rather
 * than rejected: an unpaired surrogate is percent-encoded as the three UTF-8 bytes of its
 * code point ({@code U+D800} as {@code %ED%A0%80}), which no well-formed value encodes
 * to, so it stays distinct from {@code ?} and from every other value. Values whose
 * encoding is longer than {@value #MAX_ENCODED_LENGTH} characters keep a readable head
 * followed by {@code #} and the SHA-256 of those bytes.
 *
 * <p>
 * A lock's fencing counter lives in a helper key in the lock key's Cluster hash slot:
 * {@code {<lock key>}:fence}, or {@code <lock key>:fence} when the lock key already
 * carries a hash tag.
 *
 * @author distlock
 * @since 0.1.0
 */
public final class LockKeys {

	/** Longest encoded key value kept whole. */
	public static final int MAX_ENCODED_LENGTH = 128;

	private static final int HEAD_LENGTH = 64;

	private final String prefix;

	/**
	 * Create a mapping with the given key prefix.
	 * @param prefix the prefix of every lock key, such as {@code lock:}
	 */
	public LockKeys(String prefix) {
		Assert.notNull(prefix, "'prefix' must not be null");
		this.prefix = prefix;
	}

	/**
	 * Return the Redis key of the lock with the given name.
	 * @param name the lock name
	 * @return {@code <key-prefix><name>}
	 */
	public String lockKey(String name) {
		Assert.hasLength(name, "'name' must not be empty");
		return this.prefix + name;
	}

	/**
	 * Return the key of the fencing counter of the given lock key, in the same Cluster
	 * slot.
	 * @param lockKey the lock key
	 * @return the fencing counter's key
	 * @throws IllegalArgumentException if the key has a {@code '}'} outside a hash tag,
	 * which leaves no key name that shares its slot
	 */
	public static String fenceKey(String lockKey) {
		if (hasHashTag(lockKey)) {
			return lockKey + ":fence";
		}
		Assert.isTrue(lockKey.indexOf('}') < 0, () -> "Lock key '" + lockKey
				+ "' contains '}' outside a hash tag; remove it so that the fencing counter can share the lock's Cluster slot");
		return "{" + lockKey + "}:fence";
	}

	/**
	 * Return the name of the lock for one key value: {@code <name>:<encoded value>}.
	 * @param name the lock name
	 * @param value the key value
	 * @return the keyed lock name
	 */
	public static String keyedName(String name, String value) {
		return name + ":" + encode(value);
	}

	/**
	 * Encode a key value so that it contains only letters, digits, {@code -}, {@code _},
	 * {@code .}, {@code %} escapes and, for long values, one {@code #}.
	 * @param value the key value
	 * @return the encoded value
	 */
	public static String encode(String value) {
		byte[] bytes = bytes(value);
		StringBuilder encoded = new StringBuilder(bytes.length);
		for (byte b : bytes) {
			if (isPlain(b)) {
				encoded.append((char) b);
			}
			else {
				encoded.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
			}
		}
		if (encoded.length() <= MAX_ENCODED_LENGTH) {
			return encoded.toString();
		}
		return encoded.substring(0, HEAD_LENGTH) + "#" + sha256(bytes);
	}

	/**
	 * Return the UTF-8 bytes of a value's code points, an unpaired surrogate encoded as
	 * the three bytes of its code point ({@code U+D800} as {@code ED A0 80}) rather than
	 * replaced by {@code ?} as {@link String#getBytes} does. Well-formed UTF-8 never
	 * contains those bytes, so well-formed values keep their UTF-8 encoding and every
	 * value its own.
	 */
	private static byte[] bytes(String value) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(value.length());
		value.codePoints().forEach((codePoint) -> {
			if (codePoint < 0x80) {
				out.write(codePoint);
			}
			else if (codePoint < 0x800) {
				out.write(0xC0 | (codePoint >> 6));
				out.write(0x80 | (codePoint & 0x3F));
			}
			else if (codePoint < 0x10000) {
				out.write(0xE0 | (codePoint >> 12));
				out.write(0x80 | ((codePoint >> 6) & 0x3F));
				out.write(0x80 | (codePoint & 0x3F));
			}
			else {
				out.write(0xF0 | (codePoint >> 18));
				out.write(0x80 | ((codePoint >> 12) & 0x3F));
				out.write(0x80 | ((codePoint >> 6) & 0x3F));
				out.write(0x80 | (codePoint & 0x3F));
			}
		});
		return out.toByteArray();
	}

	private static boolean isPlain(byte b) {
		return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-' || b == '_'
				|| b == '.';
	}

	private static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		if (open < 0) {
			return false;
		}
		int close = key.indexOf('}', open + 1);
		return close > open + 1;
	}

	private static String sha256(byte[] value) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(value);
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
