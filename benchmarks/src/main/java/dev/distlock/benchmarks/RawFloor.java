package dev.distlock.benchmarks;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The floor every lock is measured against: {@code SET key token NX PX} and a
 * compare-and-delete {@code EVALSHA} on one driver ({@link RawCommands}), two round trips
 * and nothing else.
 *
 * <p>
 * With {@code spinOnFailure} it is the naive spinner of the contended scenarios: a failed
 * {@code SET NX} sleeps 1 ms and tries again.
 *
 * @since 0.1.0
 */
public final class RawFloor implements Contender {

	private final String name;

	private final RawCommands commands;

	private final boolean spinOnFailure;

	/**
	 * Create the floor.
	 * @param name the name in the report
	 * @param commands the driver's commands, owned and closed by the floor
	 * @param spinOnFailure whether to sleep 1 ms and retry when the lock is taken
	 */
	public RawFloor(String name, RawCommands commands, boolean spinOnFailure) {
		this.name = name;
		this.commands = commands;
		this.spinOnFailure = spinOnFailure;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void locked(String name, Runnable work) {
		String key = redisKey(name);
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
		while (!this.commands.setIfAbsent(key, token)) {
			if (!this.spinOnFailure) {
				throw new IllegalStateException("Raw floor found '" + key + "' taken; it is not meant to wait");
			}
			sleepOneMillisecond();
		}
		try {
			work.run();
		}
		finally {
			if (!this.commands.deleteIfHeld(key, token)) {
				throw new IllegalStateException("Raw floor lost '" + key + "'");
			}
		}
	}

	@Override
	public String redisKey(String name) {
		return "raw:" + name;
	}

	@Override
	public void close() {
		this.commands.close();
	}

	private static void sleepOneMillisecond() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while spinning", ex);
		}
	}

}
