package dev.distlock.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Asks a PostgreSQL server whether it accepts connections, with a bare protocol 3.0
 * startup message: no JDBC driver needed.
 * <p>
 * A server that is still starting up, or shutting down, answers the startup message with
 * an error; one that is ready, and trusts the user, answers with
 * {@code AuthenticationOk}.
 */
final class PostgresProbe {

	private static final int PROTOCOL_3_0 = 196608;

	private static final byte AUTHENTICATION = 'R';

	private static final int AUTHENTICATION_OK = 0;

	private static final byte TERMINATE = 'X';

	private PostgresProbe() {
	}

	/**
	 * Tells whether the server on {@code 127.0.0.1:port} lets {@code user} into its
	 * database of the same name without a password.
	 * @param port the server's port
	 * @param user a user the server trusts
	 * @param timeout how long to wait to connect and for the answer
	 * @return {@code true} if the server answered {@code AuthenticationOk}
	 */
	static boolean acceptsConnections(int port, String user, Duration timeout) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(RedisServer.HOST, port), (int) timeout.toMillis());
			socket.setSoTimeout((int) timeout.toMillis());
			DataOutputStream out = new DataOutputStream(socket.getOutputStream());
			out.write(startupMessage(user));
			out.flush();
			DataInputStream in = new DataInputStream(socket.getInputStream());
			boolean accepted = in.readByte() == AUTHENTICATION && in.readInt() == 8
					&& in.readInt() == AUTHENTICATION_OK;
			if (accepted) {
				out.writeByte(TERMINATE);
				out.writeInt(4);
				out.flush();
			}
			return accepted;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static byte[] startupMessage(String user) throws IOException {
		ByteArrayOutputStream parameters = new ByteArrayOutputStream();
		for (String text : new String[] { "user", user, "database", user, "" }) {
			parameters.write(text.getBytes(StandardCharsets.UTF_8));
			parameters.write(0);
		}
		ByteArrayOutputStream message = new ByteArrayOutputStream();
		DataOutputStream out = new DataOutputStream(message);
		out.writeInt(8 + parameters.size());
		out.writeInt(PROTOCOL_3_0);
		parameters.writeTo(out);
		return message.toByteArray();
	}

}
