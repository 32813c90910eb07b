package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisKeyCommands;

/**
 * What a contract run by the {@link RedisLockRegistryContract} asks of the deployment it
 * runs on: registries, each standing for one application instance, a plain client to look
 * at the keys, the servers that may hold a lock, and what to close after each test.
 */
interface ContractDeployment {

	/**
	 * Connect a registry, as one application instance would, closed after the test.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	RedisLockRegistry registry(Duration leaseTime);

	/**
	 * Connect a registry like {@link #registry(Duration)}, recording the events it
	 * publishes.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	TestLockRegistry testRegistry(Duration leaseTime);

	/**
	 * Return the key commands of a plain client of the deployment.
	 * @return the commands
	 */
	RedisKeyCommands<String, String> keyCommands();

	/**
	 * Return the URIs of the servers of the deployment that may hold a lock: its
	 * primaries. Every message published on the deployment can be heard on the first.
	 * @return the URIs
	 */
	List<String> serverUris();

	/**
	 * Return what the contract closes after each test.
	 * @return the closer
	 */
	Closer closer();

	/**
	 * Connect to every server that may hold a lock and return its command statistics.
	 * @return the statistics, one per server
	 */
	default List<CommandStats> commandStats() {
		return serverUris().stream()
			.map((uri) -> new CommandStats(closer().add(RedisTestClient.connect(uri, Duration.ofSeconds(10))).sync()))
			.toList();
	}

}
