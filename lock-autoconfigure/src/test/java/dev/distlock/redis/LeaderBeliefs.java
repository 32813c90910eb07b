package dev.distlock.redis;

import java.util.OptionalLong;

import dev.distlock.Leadership;

/**
 * Asks a {@link Leadership} every {@value #SAMPLE_MILLIS} ms whether it leads, on a
 * daemon thread, and prints each stretch in which it said so: when it starts,
 * {@code BELIEVING <fencing token> <from>}, and when it ends,
 * {@code BELIEVED <fencing token> <from> <to>}, in wall-clock milliseconds of the first
 * and last sample that said so, each read just before it asked. A JVM that is paused
 * takes no samples, so a stretch ends with the last sample before the pause.
 */
final class LeaderBeliefs implements AutoCloseable {

	/** How often the leadership is asked, in milliseconds. */
	static final long SAMPLE_MILLIS = 5;

	private final Leadership leadership;

	private final Thread sampler;

	private volatile boolean closed;

	private LeaderBeliefs(Leadership leadership) {
		this.leadership = leadership;
		this.sampler = new Thread(this::sample, "leader-beliefs");
		this.sampler.setDaemon(true);
	}

	/**
	 * Start asking the leadership whether it leads.
	 * @param leadership the leadership to ask
	 * @return the running sampler
	 */
	static LeaderBeliefs start(Leadership leadership) {
		LeaderBeliefs beliefs = new LeaderBeliefs(leadership);
		beliefs.sampler.start();
		return beliefs;
	}

	private void sample() {
		long token = 0;
		long from = 0;
		long to = 0;
		while (!this.closed) {
			// The clock first: a pause between the two must not date an answer given
			// before it after it
			long now = System.currentTimeMillis();
			OptionalLong current = this.leadership.fencingToken();
			if (token != 0 && (current.isEmpty() || current.getAsLong() != token)) {
				System.out.println("BELIEVED " + token + " " + from + " " + to);
				token = 0;
			}
			if (current.isPresent()) {
				if (token == 0) {
					token = current.getAsLong();
					from = now;
					System.out.println("BELIEVING " + token + " " + from);
				}
				to = now;
			}
			try {
				Thread.sleep(SAMPLE_MILLIS);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.closed = true;
		this.sampler.join();
	}

}
