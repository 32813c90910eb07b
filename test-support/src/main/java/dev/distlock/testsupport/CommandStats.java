package dev.distlock.testsupport;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Counts the commands a Redis server executed, from {@code INFO commandstats}, leaving
 * out the {@code INFO} and {@code CONFIG} calls this class makes itself.
 */
public final class CommandStats {

	private static final Pattern CALLS = Pattern.compile("^cmdstat_([^:]+):calls=(\\d+),usec=(\\d+)",
			Pattern.MULTILINE);

	private final RedisCommands<String, String> redis;

	/**
	 * Create command statistics read through the given connection.
	 * @param redis a connection to the server
	 */
	public CommandStats(RedisCommands<String, String> redis) {
		this.redis = redis;
	}

	/**
	 * Set every counter to zero.
	 */
	public void reset() {
		this.redis.configResetstat();
	}

	/**
	 * Return the calls per command since the last reset.
	 * @return the calls, by lower-case command name
	 */
	public Map<String, Long> calls() {
		return read(2);
	}

	/**
	 * Return the time spent per command since the last reset. A script's time includes
	 * the commands it ran, which are counted under their own names too.
	 * @return the microseconds, by lower-case command name
	 */
	public Map<String, Long> micros() {
		return read(3);
	}

	private Map<String, Long> read(int group) {
		Map<String, Long> counts = new TreeMap<>();
		Matcher matcher = CALLS.matcher(this.redis.info("commandstats"));
		while (matcher.find()) {
			String command = matcher.group(1);
			if (!command.equals("info") && !command.startsWith("config")) {
				counts.put(command, Long.parseLong(matcher.group(group)));
			}
		}
		return counts;
	}

	/**
	 * Return the total calls since the last reset.
	 * @return the number of commands executed
	 */
	public long total() {
		return calls().values().stream().mapToLong(Long::longValue).sum();
	}

}
