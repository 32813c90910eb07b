package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.testsupport.Closer;
import io.lettuce.core.api.sync.RedisKeyCommands;

/**
 * What a contract run by the {@link RedisLockRegistryContract} asks of the deployment it
 * runs on: registries, each standing for one application instance, a plain client to look
 * at the keys, and what to close after each test.
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
	 * Return what the contract closes after each test.
	 * @return the closer
	 */
	Closer closer();

}
