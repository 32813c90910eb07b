package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Finds TCP ports on the loopback interface that are currently free.
 */
public final class FreePorts {

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

}
