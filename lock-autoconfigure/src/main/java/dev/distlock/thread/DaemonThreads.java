package dev.distlock.thread;

import java.util.concurrent.ThreadFactory;

/**
 * Makes distlock's own threads: daemons, so that they never keep a JVM from exiting,
 * named so that a thread dump says whose they are.
 *
 * @since 0.1.0
 */
public final class DaemonThreads {

	private DaemonThreads() {
	}

	/**
	 * Return a factory of daemon threads with the given name.
	 * @param name the name of every thread made
	 * @return the thread factory
	 */
	public static ThreadFactory named(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

}
