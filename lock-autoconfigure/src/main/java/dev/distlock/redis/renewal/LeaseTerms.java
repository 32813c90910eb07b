package dev.distlock.redis.renewal;

/**
 * How long a hold lasts without renewal and how long its lock is kept from everyone after
 * that: the key of a hold lives the lease plus the lock delay, so a lease that runs out
 * without a release keeps the lock for the delay, while a release frees it at once.
 *
 * @param leaseMillis the lease: how long this JVM counts the hold valid after the command
 * that acquired or renewed it was sent
 * @param delayMillis the lock delay: how much longer Redis keeps the key
 */
public record LeaseTerms(long leaseMillis, long delayMillis) {

	/**
	 * Return how long the lock's key lives after it is set or renewed.
	 * @return the key's time to live in milliseconds
	 */
	public long keyMillis() {
		return this.leaseMillis + this.delayMillis;
	}

}
