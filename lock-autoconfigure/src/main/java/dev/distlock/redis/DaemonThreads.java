package dev.distlock.redis;

import java.util.concurrent.ThreadFactory;

/**
 * Makes the engine's own threads: daemons, so that they never keep a JVM from exiting,
 * named so that a thread dump says whose they are.
 */
final class DaemonThreads {

	private DaemonThreads() {
	}

	/**
	 * Return a factory of daemon threads with the given name.
	 * @param name the name of every thread made
	 */
	static ThreadFactory named(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

}
