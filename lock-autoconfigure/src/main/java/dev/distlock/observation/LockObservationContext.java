package dev.distlock.observation;

import dev.distlock.LockName;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What the observations of one lock know: its name, the fencing token of the hold once
 * there is one, and how the wait or hold ended once it did.
 *
 * @since 0.1.0
 */
public abstract class LockObservationContext extends Observation.Context {

	private final LockName lockName;

	private volatile long fencingToken;

	private volatile @Nullable LockObservationResult result;

	LockObservationContext(LockName lockName, long fencingToken) {
		this.lockName = lockName;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the name of the lock.
	 * @return the lock name, whose {@link LockName#base() base} is the annotation's name
	 * for an annotated lock
	 */
	public LockName getLockName() {
		return this.lockName;
	}

	/**
	 * Return the key value of the lock: the part of its name after its
	 * {@link LockName#base() base}, as encoded in the name.
	 * @return the key value, such as {@code 42} for {@code order:42}, or {@code null}
	 * when the name has none
	 */
	public @Nullable String getKeyValue() {
		String base = this.lockName.base();
		String name = this.lockName.value();
		return (base.length() < name.length()) ? name.substring(base.length() + 1) : null;
	}

	/**
	 * Return the fencing token of the hold.
	 * @return the fencing token, or 0 while the lock is not acquired
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	void setFencingToken(long fencingToken) {
		this.fencingToken = fencingToken;
	}

	/**
	 * Return how the wait or hold ended.
	 * @return the result, or {@code null} while it goes on
	 */
	public @Nullable LockObservationResult getResult() {
		return this.result;
	}

	void setResult(LockObservationResult result) {
		this.result = result;
	}

}
