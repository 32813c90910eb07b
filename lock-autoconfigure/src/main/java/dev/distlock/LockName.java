package dev.distlock;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The name of a lock, and the base name that groups it with the other locks of one
 * {@link DistributedLock @DistributedLock} or naming scheme.
 *
 * <p>
 * A keyed lock is named {@code <base>:<encoded key value>}: letters, digits, {@code -},
 * {@code _} and {@code .} of the value stay as they are, every other character is
 * percent-encoded as UTF-8 ({@code a:b} becomes {@code a%3Ab}), and a value whose
 * encoding is longer than 128 characters keeps its first 64 followed by {@code #} and the
 * SHA-256 of the value. So an encoded value never contains {@code :}, and the base of
 * every name is the name up to its last {@code :}, or the whole name when it has none:
 * {@code order:42} belongs to {@code order}. Names that lock code writes by hand follow
 * the same {@code <base>:<id>} convention, so that metrics can be grouped by base with a
 * bounded set of values.
 *
 * <p>
 * A name is not empty and does not contain {@code !}, which registries keep for the keys
 * of a lock's helpers (such as its fencing key) so that no lock is ever one of them.
 *
 * @since 0.1.0
 */
public final class LockName implements Comparable<LockName> {

	/** The character no lock name contains: registries keep it for helper keys. */
	public static final char RESERVED = '!';

	private final String value;

	private final String base;

	private LockName(String value) {
		this.value = value;
		int separator = value.lastIndexOf(':');
		this.base = (separator > 0) ? value.substring(0, separator) : value;
	}

	/**
	 * Return the lock name given as text, such as {@code report} or {@code order:42}.
	 * @param name the name
	 * @return the lock name
	 * @throws IllegalArgumentException if the name is empty or contains {@code !}
	 */
	public static LockName of(String name) {
		Assert.hasLength(name, "'name' must not be empty");
		Assert.isTrue(name.indexOf(RESERVED) < 0, () -> "Lock name '" + name + "' contains '" + RESERVED
				+ "', which is reserved for distlock's helper keys");
		return new LockName(name);
	}

	/**
	 * Return the name of the lock of one key value: {@code <base>:<encoded value>}.
	 * @param base the name of the locks of every key value, such as {@code order}
	 * @param keyValue the key value, such as {@code 42}
	 * @return the lock name, whose {@link #base()} is the given base
	 * @throws IllegalArgumentException if the base is empty or contains {@code !}
	 */
	public static LockName keyed(String base, String keyValue) {
		return new LockName(of(base).value + ":" + KeyValueEncoding.encode(keyValue));
	}

	/**
	 * Return the name, as registries and Redis keys use it.
	 * @return the name
	 */
	public String value() {
		return this.value;
	}

	/**
	 * Return the base name: the name up to its last {@code :}, or the whole name.
	 * @return the base name, such as {@code order} for {@code order:42}
	 */
	public String base() {
		return this.base;
	}

	@Override
	public int compareTo(LockName other) {
		return this.value.compareTo(other.value);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof LockName name && this.value.equals(name.value));
	}

	@Override
	public int hashCode() {
		return this.value.hashCode();
	}

	@Override
	public String toString() {
		return this.value;
	}

}
