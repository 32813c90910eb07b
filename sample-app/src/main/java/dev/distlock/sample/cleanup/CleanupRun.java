package dev.distlock.sample.cleanup;

import java.time.Instant;

/**
 * One run of the {@link CleanupJob}, as recorded in Redis.
 *
 * @param fencingToken the fencing token of the lock the run held
 * @param instance the instance that ran it ({@code sample.instance-id})
 * @param startedAt when the job method started
 * @param finishedAt when it finished its work
 */
public record CleanupRun(long fencingToken, String instance, Instant startedAt, Instant finishedAt) {

	private static final String SEPARATOR = "|";

	/**
	 * Parse a run from its recorded form.
	 * @param recorded as produced by {@link #toRecord()}
	 * @return the run
	 */
	public static CleanupRun parse(String recorded) {
		String[] fields = recorded.split("\\" + SEPARATOR, 4);
		return new CleanupRun(Long.parseLong(fields[0]), fields[3], Instant.parse(fields[1]), Instant.parse(fields[2]));
	}

	/**
	 * Return the form in which the run is recorded in Redis.
	 * @return {@code token|startedAt|finishedAt|instance}
	 */
	public String toRecord() {
		return this.fencingToken + SEPARATOR + this.startedAt + SEPARATOR + this.finishedAt + SEPARATOR + this.instance;
	}

}
