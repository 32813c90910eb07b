package dev.distlock.keys;

/**
 * Redis Cluster's rule for which part of a key decides its hash slot: the text between
 * the first {@code '{'} and the next {@code '}'} when it is not empty (the key's hash
 * tag), otherwise the whole key.
 *
 * @since 0.1.0
 */
public final class ClusterSlots {

	private ClusterSlots() {
	}

	/**
	 * Return what decides a key's Cluster slot: the text of its hash tag, or the whole
	 * key when it has none. {@code {<slot tag>}} at the start of another key puts that
	 * key in the same slot, unless the slot tag contains a {@code '}'}.
	 * @param key the key
	 * @return its slot tag
	 */
	public static String slotTag(String key) {
		if (!hasHashTag(key)) {
			return key;
		}
		int open = key.indexOf('{');
		return key.substring(open + 1, key.indexOf('}', open + 1));
	}

	/**
	 * Return whether a key has a hash tag: a {@code '{'} followed later by a {@code '}'},
	 * with text between them.
	 * @param key the key
	 * @return whether only its hash tag decides its slot
	 */
	public static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		if (open < 0) {
			return false;
		}
		int close = key.indexOf('}', open + 1);
		return close > open + 1;
	}

}
