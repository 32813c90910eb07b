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
	 * for an annotated lock, and the name a programmatic caller gave otherwise
	 */
	public LockName getLockName() {
		return this.lockName;
	}

	/**
	 * Return the key value of the lock, as encoded in its name.
	 * @return the {@link LockName#keyValue() key value} of a keyed name, such as
	 * {@code 42} for {@code LockName.keyed("order", "42")}, or {@code null} for a name
	 * given whole
	 */
	public @Nullable String getKeyValue() {
		return this.lockName.keyValue();
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
