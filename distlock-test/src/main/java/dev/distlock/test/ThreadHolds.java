package dev.distlock.test;

import java.util.HashMap;
import java.util.Map;

import dev.distlock.LockLostException;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one side of a registry's locks (the locks and write sides, or the read
 * sides) owned by each thread, with their reentries.
 */
final class ThreadHolds {

	private final ThreadLocal<Map<LockName, InMemoryHold>> holds = ThreadLocal.withInitial(HashMap::new);

	/** How a hold of this side is named in messages: "Lock" or "Read lock". */
	private final String description;

	ThreadHolds(String description) {
		this.description = description;
	}

	@Nullable InMemoryHold find(LockName name) {
		return this.holds.get().get(name);
	}

	/**
	 * Return the current thread's hold of the named lock.
	 * @throws IllegalMonitorStateException if it owns none
	 */
	InMemoryHold get(LockName name) {
		InMemoryHold hold = find(name);
		if (hold == null) {
			throw new IllegalMonitorStateException(this.description + " '" + name + "' is not held by thread '"
					+ Thread.currentThread().getName() + "'");
		}
		return hold;
	}

	/**
	 * Return the current thread's hold of the named lock while it is valid.
	 * @throws IllegalMonitorStateException if it owns none
	 * @throws LockLostException if the hold it owns is lost
	 */
	InMemoryHold held(LockName name) {
		return valid(get(name), "its fencing token fences nothing");
	}

	/**
	 * Return whether the current thread owns a valid hold of the named lock.
	 */
	boolean isHeld(LockName name) {
		InMemoryHold hold = find(name);
		return hold != null && hold.isValid();
	}

	/**
	 * Enter the current thread's hold of the named lock once more, if it owns one.
	 * @return whether it owned one
	 * @throws LockLostException if the hold it owns is lost; it is not entered
	 */
	boolean reenter(LockName name) {
		InMemoryHold hold = find(name);
		if (hold == null) {
			return false;
		}
		valid(hold, "it cannot be re-entered").reentries++;
		return true;
	}

	/**
	 * Record a new hold of the current thread.
	 */
	void add(InMemoryHold hold) {
		hold.owner = Thread.currentThread().getName();
		hold.reentries = 1;
		this.holds.get().put(hold.name, hold);
	}

	/**
	 * Leave one hold of the named lock.
	 * @return the hold when the outermost one was left (to be released), otherwise
	 * {@code null}
	 * @throws IllegalMonitorStateException if the current thread owns none
	 */
	@Nullable InMemoryHold leave(LockName name) {
		InMemoryHold hold = get(name);
		if (--hold.reentries > 0) {
			return null;
		}
		this.holds.get().remove(name);
		return hold;
	}

	private InMemoryHold valid(InMemoryHold hold, String consequence) {
		if (!hold.isValid()) {
			throw new LockLostException(hold.name.value(), hold.fencingToken,
					this.description + " '" + hold.name + "' (fencing token " + hold.fencingToken
							+ ") was lost while thread '" + Thread.currentThread().getName() + "' held it: "
							+ consequence + "; unlock it, which throws LockLostException too, then acquire it again");
		}
		return hold;
	}

}
