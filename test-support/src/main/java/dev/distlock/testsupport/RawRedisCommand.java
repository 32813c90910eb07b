package dev.distlock.testsupport;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Sends one Redis command over a raw socket, so that no client library is needed. Only
 * the first line of the reply is read, which suits simple-string and error replies such
 * as {@code +PONG}, {@code +OK} or {@code -NOAUTH ...}.
 */
final class RawRedisCommand {

	private RawRedisCommand() {
	}

	/**
	 * Sends {@code command} to the server on the given loopback port, authenticating
	 * first if a password is given.
	 * @return the first line of the reply, or of the {@code AUTH} reply if that was not
	 * {@code +OK}
	 */
	static String send(int port, @Nullable String password, Duration timeout, String... command) throws IOException {
		int millis = Math.toIntExact(timeout.toMillis());
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(RedisServer.HOST, port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = socket.getOutputStream();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
			if (password != null) {
				String auth = roundTrip(out, in, "AUTH", password);
				if (!auth.equals("+OK")) {
					return auth;
				}
			}
			return roundTrip(out, in, command);
		}
	}

	private static String roundTrip(OutputStream out, BufferedReader in, String... command) throws IOException {
		StringBuilder request = new StringBuilder("*").append(command.length).append("\r\n");
		for (String argument : command) {
			request.append('$')
				.append(argument.getBytes(StandardCharsets.UTF_8).length)
				.append("\r\n")
				.append(argument)
				.append("\r\n");
		}
		out.write(request.toString().getBytes(StandardCharsets.UTF_8));
		out.flush();
		String reply = in.readLine();
		if (reply == null) {
			throw new EOFException("Redis closed the connection without replying to " + command[0]);
		}
		return reply;
	}

}
