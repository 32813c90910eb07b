package dev.distlock;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The name of a lock, as the caller gave it: a name given whole, or the base name that
 * groups the locks of one {@link DistributedLock @DistributedLock} or naming scheme and a
 * key value.
 *
 * <p>
 * A keyed lock is named {@code <base>:<encoded key value>}: letters, digits, {@code -},
 * {@code _} and {@code .} of the value stay as they are, every other character is
 * percent-encoded as UTF-8 ({@code a:b} becomes {@code a%3Ab}), and a value whose
 * encoding is longer than 128 characters keeps its first 64 followed by {@code #} and the
 * SHA-256 of the value. So an encoded value never contains {@code :}, and distinct pairs
 * of base and value never share a name.
 *
 * <p>
 * The base and the key value are what the caller gave, never read back out of the text:
 * {@code LockName.keyed("invoices", "acme")} has the base {@code invoices} and the key
 * value {@code acme}, while {@code LockName.of("tenant:acme:invoices")} is a name given
 * whole, its own base, without a key value. Metrics are tagged with the base, a bounded
 * set of values, and only traces carry the key value. Two lock names are equal when their
 * texts are, however they were given: both stand for the same lock.
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

	private final @Nullable String keyValue;

	private LockName(String value, String base, @Nullable String keyValue) {
		this.value = value;
		this.base = base;
		this.keyValue = keyValue;
	}

	/**
	 * Return the lock name given whole, such as {@code report} or
	 * {@code tenant:acme:invoices}: its own base, without a key value.
	 * @param name the name
	 * @return the lock name
	 * @throws IllegalArgumentException if the name is empty or contains {@code !}
	 */
	public static LockName of(String name) {
		Assert.hasLength(name, "'name' must not be empty");
		Assert.isTrue(name.indexOf(RESERVED) < 0, () -> "Lock name '" + name + "' contains '" + RESERVED
				+ "', which is reserved for distlock's helper keys");
		return new LockName(name, name, null);
	}

	/**
	 * Check that a key prefix ({@code distlock.key-prefix}) does not contain {@code !},
	 * which only the keys of a lock's helpers use.
	 * @param prefix the prefix of every lock key
	 * @throws IllegalArgumentException if the prefix contains {@code !}
	 */
	public static void checkKeyPrefix(String prefix) {
		Assert.isTrue(prefix.indexOf(RESERVED) < 0, () -> "Key prefix '" + prefix + "' contains '" + RESERVED
				+ "', which is reserved for distlock's helper keys");
	}

	/**
	 * Return the name of the lock of one key value: {@code <base>:<encoded value>}.
	 * @param base the name of the locks of every key value, such as {@code order}
	 * @param keyValue the key value, such as {@code 42}
	 * @return the lock name, whose {@link #base()} is the given base and whose
	 * {@link #keyValue()} is the encoded value
	 * @throws IllegalArgumentException if the base is empty or contains {@code !}
	 */
	public static LockName keyed(String base, String keyValue) {
		String encoded = KeyValueEncoding.encode(keyValue);
		return new LockName(of(base).value + ":" + encoded, base, encoded);
	}

	/**
	 * Return the name, as registries and Redis keys use it.
	 * @return the name
	 */
	public String value() {
		return this.value;
	}

	/**
	 * Return the base name: the base of a {@link #keyed keyed} name, or the whole name of
	 * a name given whole.
	 * @return the base name, such as {@code order} for
	 * {@code LockName.keyed("order", "42")}
	 */
	public String base() {
		return this.base;
	}

	/**
	 * Return the key value of a {@link #keyed keyed} name, as encoded in the name.
	 * @return the encoded key value, such as {@code 42} for
	 * {@code LockName.keyed("order", "42")}, or {@code null} for a name given whole
	 */
	public @Nullable String keyValue() {
		return this.keyValue;
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
