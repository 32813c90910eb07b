package dev.distlock.benchmarks;

import dev.distlock.testsupport.CommandStats;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The Redis every contender uses, and what counts the commands and requests it runs.
 *
 * @param host Redis host
 * @param port Redis port
 * @param admin a connection of this JVM's that no contender uses
 * @since 0.1.0
 */
record WatchedRedis(String host, int port, RedisCommands<String, String> admin) {

	/**
	 * Return the counters of the commands Redis ran, every command a script runs
	 * included.
	 * @return the command counters
	 */
	CommandStats commandStats() {
		return new CommandStats(this.admin);
	}

	/**
	 * Start counting the requests clients send, a script call counted once.
	 * @return the running count
	 */
	MonitoredRequests monitorRequests() {
		return MonitoredRequests.start(this.host, this.port, this.admin);
	}

}
