package dev.distlock.docs;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A store that records each write with the fencing token it was made under.
 */
class TokenStore {

	private final List<Write> writes = new CopyOnWriteArrayList<>();

	/**
	 * Write a value.
	 * @param value the value
	 * @param fencingToken the fencing token of the writer's lock
	 */
	void write(String value, long fencingToken) {
		this.writes.add(new Write(value, fencingToken));
	}

	/**
	 * Return the writes made so far, oldest first.
	 * @return the writes
	 */
	List<Write> writes() {
		return List.copyOf(this.writes);
	}

	/**
	 * A write.
	 *
	 * @param value the value written
	 * @param fencingToken the fencing token it was written under
	 */
	record Write(String value, long fencingToken) {

	}

}
