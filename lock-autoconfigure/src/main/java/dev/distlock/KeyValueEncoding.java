package dev.distlock;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * Encodes key values for lock names: letters, digits, {@code -}, {@code _} and {@code .}
 * stay as they are, every other character is percent-encoded as UTF-8, so an encoded
 * value never contains {@code :}, braces or {@code !}, and distinct values never share an
 * encoding. Strings that are not well-formed UTF-16 are encoded too rather than rejected:
 * an unpaired surrogate is percent-encoded as the three UTF-8 bytes of its code point
 * ({@code U+D800} as {@code %ED%A0%80}), which no well-formed value encodes to. Values
 * whose encoding is longer than {@value #MAX_ENCODED_LENGTH} characters keep a readable
 * head followed by {@code #} and the SHA-256 of their bytes.
 */
final class KeyValueEncoding {

	/** Longest encoded key value kept whole. */
	static final int MAX_ENCODED_LENGTH = 128;

	private static final int HEAD_LENGTH = 64;

	private KeyValueEncoding() {
	}

	/**
	 * Encode a key value so that it contains only letters, digits, {@code -}, {@code _},
	 * {@code .}, {@code %} escapes and, for long values, one {@code #}. The value is read
	 * once, one code point at a time, keeping no more of its encoding than the result
	 * needs, so that a long value costs little memory.
	 * @param value the key value
	 * @return the encoded value
	 */
	static String encode(String value) {
		Encoding encoding = new Encoding(value.length());
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

		private final byte[] chunk;

		private int chunkLength;

		private @Nullable MessageDigest digest;

		/**
		 * Create an encoding of a value of the given length, whose UTF-8 bytes are at
		 * most three per character, so that a short value's chunk is small.
		 */
		Encoding(int length) {
			this.chunk = new byte[(int) Math.min(CHUNK_SIZE, 3L * Math.max(length, 1))];
		}

		void write(int b) {
			if (this.text.length() <= MAX_ENCODED_LENGTH) {
				if (isPlain(b)) {
					this.text.append((char) b);
				}
				else {
					this.text.append('%').append(ESCAPES.toHexDigits((byte) b));
				}
			}
			if (this.chunkLength == this.chunk.length) {
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
