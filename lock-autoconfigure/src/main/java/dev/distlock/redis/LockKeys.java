package dev.distlock.redis;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Maps lock names and key values to Redis keys.
 *
 * <p>
 * A registry name becomes {@code <key-prefix><name>}, nothing else added. A keyed lock's
 * name is {@code <name>:<encoded value>}: letters, digits, {@code -}, {@code _} and
 * {@code .} stay as they are, every other character is percent-encoded as UTF-8, so an
 * encoded value never contains {@code :}, braces, {@code #} or {@code !}, and distinct
 * (name, value) pairs never share a key. Strings that are not well-formed UTF-16 are
 * encoded too rather than rejected: an unpaired surrogate is percent-encoded as the three
 * UTF-8 bytes of its code point ({@code U+D800} as {@code %ED%A0%80}), which no
 * well-formed value encodes to, so it stays distinct from {@code ?} and from every other
 * value. Values whose encoding is longer than {@value #MAX_ENCODED_LENGTH} characters
 * keep a readable head followed by {@code #} and the SHA-256 of those bytes.
 *
 * <p>
 * The character {@code !} is reserved for the keys of a lock's helpers, such as its
 * fencing counter: {@code <lock key>!<role>} when the lock key carries a hash tag,
 * otherwise {@code {<lock key>}!<role>}, in the lock key's Cluster hash slot either way.
 * Lock names and key prefixes must not contain it ({@link #checkName},
 * {@link #checkPrefix}) and encoded key values never do, so no lock key is ever a helper
 * key.
 *
 * @author distlock
 * @since 0.1.0
 */
public final class LockKeys {

	/** Longest encoded key value kept whole. */
	public static final int MAX_ENCODED_LENGTH = 128;

	private static final int HEAD_LENGTH = 64;

	private static final char HELPER_SEPARATOR = '!';

	private static final String FENCE = "fence";

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
	 * Check that a lock name does not contain {@code !}, which only helper keys use.
	 * @param name the lock name
	 * @throws IllegalArgumentException if the name contains {@code !}
	 */
	public static void checkName(String name) {
		checkUnreserved("Lock name", name);
	}

	/**
	 * Check that a key prefix does not contain {@code !}, which only helper keys use.
	 * @param prefix the prefix of every lock key
	 * @throws IllegalArgumentException if the prefix contains {@code !}
	 */
	public static void checkPrefix(String prefix) {
		checkUnreserved("Key prefix", prefix);
	}

	/**
	 * Return the key of the fencing counter of the given lock key: its helper key of role
	 * {@code fence}.
	 * @param lockKey the lock key
	 * @return the fencing counter's key
	 * @throws IllegalArgumentException if the key has a {@code '}'} outside a hash tag
	 * @see #helperKey(String, String)
	 */
	public static String fenceKey(String lockKey) {
		return helperKey(lockKey, FENCE);
	}

	/**
	 * Return the key of one of a lock's helpers: {@code <lock key>!<role>} when the lock
	 * key carries a hash tag, otherwise {@code {<lock key>}!<role>}. Either way it is in
	 * the lock key's Cluster slot, and it is no lock key, since lock keys never contain
	 * {@code !}.
	 * @param lockKey the lock key
	 * @param role what the helper is for, such as {@code fence}
	 * @return the helper's key
	 * @throws IllegalArgumentException if the key has a {@code '}'} outside a hash tag,
	 * which leaves no key name that shares its slot
	 */
	public static String helperKey(String lockKey, String role) {
		if (hasHashTag(lockKey)) {
			return lockKey + HELPER_SEPARATOR + role;
		}
		Assert.isTrue(lockKey.indexOf('}') < 0, () -> "Lock key '" + lockKey
				+ "' contains '}' outside a hash tag; remove it so that the lock's helper keys, such as its fencing counter, can share its Cluster slot");
		return "{" + lockKey + "}" + HELPER_SEPARATOR + role;
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
	 * {@code .}, {@code %} escapes and, for long values, one {@code #}. The value is read
	 * once, one code point at a time, keeping no more of its encoding than the result
	 * needs, so that a long value costs little memory.
	 * @param value the key value
	 * @return the encoded value
	 */
	public static String encode(String value) {
		Encoding encoding = new Encoding();
		int index = 0;
		while (index < value.length()) {
			int codePoint = value.codePointAt(index);
			writeUtf8(codePoint, encoding);
			index += Character.charCount(codePoint);
		}
		return encoding.result();
	}

	/**
	 * Write the UTF-8 bytes of a code point, an unpaired surrogate as the three bytes of
	 * its code point ({@code U+D800} as {@code ED A0 80}) rather than replaced by
	 * {@code ?} as {@link String#getBytes} does. Well-formed UTF-8 never contains those
	 * bytes, so well-formed values keep their UTF-8 encoding and every value its own.
	 */
	private static void writeUtf8(int codePoint, Encoding out) {
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
	}

	private static void checkUnreserved(String description, String value) {
		Assert.isTrue(value.indexOf(HELPER_SEPARATOR) < 0, () -> description + " '" + value + "' contains '"
				+ HELPER_SEPARATOR + "', which is reserved for distlock's helper keys");
	}

	private static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		if (open < 0) {
			return false;
		}
		int close = key.indexOf('}', open + 1);
		return close > open + 1;
	}

	/**
	 * The encoding of one key value, written one UTF-8 byte at a time. It escapes bytes
	 * only while its text is no longer than {@value #MAX_ENCODED_LENGTH} characters,
	 * which is enough to tell whether the value is long and to keep a long value's head,
	 * and passes the bytes to a SHA-256 digest in chunks, which only long values need.
	 */
	private static final class Encoding {

		private static final HexFormat ESCAPES = HexFormat.of().withUpperCase();

		private static final int CHUNK_SIZE = 1024;

		private final StringBuilder text = new StringBuilder(MAX_ENCODED_LENGTH + 3);

		private final byte[] chunk = new byte[CHUNK_SIZE];

		private int chunkLength;

		private @Nullable MessageDigest digest;

		void write(int b) {
			if (this.text.length() <= MAX_ENCODED_LENGTH) {
				if (isPlain(b)) {
					this.text.append((char) b);
				}
				else {
					this.text.append('%').append(ESCAPES.toHexDigits((byte) b));
				}
			}
			if (this.chunkLength == CHUNK_SIZE) {
				digestChunk();
			}
			this.chunk[this.chunkLength++] = (byte) b;
		}

		String result() {
			if (this.text.length() <= MAX_ENCODED_LENGTH) {
				return this.text.toString();
			}
			digestChunk();
			return this.text.substring(0, HEAD_LENGTH) + "#" + HexFormat.of().formatHex(digest().digest());
		}

		private void digestChunk() {
			digest().update(this.chunk, 0, this.chunkLength);
			this.chunkLength = 0;
		}

		private MessageDigest digest() {
			if (this.digest == null) {
				try {
					this.digest = MessageDigest.getInstance("SHA-256");
				}
				catch (NoSuchAlgorithmException ex) {
					throw new IllegalStateException(ex);
				}
			}
			return this.digest;
		}

		private static boolean isPlain(int b) {
			return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-' || b == '_'
					|| b == '.';
		}

	}

}
