package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.function.IntPredicate;

/**
 * Finds TCP ports on the loopback interface that are currently free.
 */
public final class FreePorts {

	private static final int ATTEMPTS = 5;

	private FreePorts() {
	}

	/**
	 * Returns a port on {@code 127.0.0.1} that was free a moment ago (another process may
	 * still grab it before the caller binds it).
	 * @return a free port
	 */
	public static int find() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RedisServer.HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free port", ex);
		}
	}

	/**
	 * Launches a server on a free port, and on another one should a different process
	 * take the port between the moment it was found and the server binding it.
	 * @param server names the server in the error message
	 * @param launch launches the server on the given port and tells whether it could bind
	 * it
	 * @throws IllegalStateException if the server could bind none of five free ports
	 */
	static void launchServer(String server, IntPredicate launch) {
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			if (launch.test(find())) {
				return;
			}
		}
		throw new IllegalStateException(server + " found no free port in " + ATTEMPTS + " attempts");
	}

}
