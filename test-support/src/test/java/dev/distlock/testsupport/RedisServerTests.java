package dev.distlock.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisServer} against real {@code redis-server} processes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisServerTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);

	private static final Duration WAIT = Duration.ofSeconds(10);

	@Test
	void startsAServerThatAnswersCommands() {
		try (RedisServer server = RedisServer.start(); RedisTestClient client = connect(server)) {
			assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
			assertThat(server.isRunning()).isTrue();
			client.sync().set("key", "value");
			assertThat(client.sync().get("key")).isEqualTo("value");
			assertThat(client.sync().info("server")).contains("redis_version:" + RedisServerBinary.get().version());
		}
	}

	@Test
	void pauseMakesCommandsTimeOutAndResumeAnswersThemAgain() {
		try (RedisServer server = RedisServer.start(); RedisTestClient client = connect(server)) {
			server.pause();
			assertThatExceptionOfType(RedisCommandTimeoutException.class).isThrownBy(() -> client.sync().ping());
			server.resume();
			await().atMost(WAIT).untilAsserted(() -> assertThat(client.sync().ping()).isEqualTo("PONG"));
		}
	}

	@Test
	void restartAfterKillUsesTheSamePortAndHasNoData() {
		try (RedisServer server = RedisServer.start(); RedisTestClient client = connect(server)) {
			client.sync().set("key", "value");
			int port = server.port();
			long firstPid = server.pid();
			server.kill();
			assertThat(server.isRunning()).isFalse();
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.pid()).isNotEqualTo(firstPid);
			await().atMost(WAIT).untilAsserted(() -> assertThat(client.sync().dbsize()).isZero());
		}
	}

	@Test
	void stopShutsTheServerDown() {
		try (RedisServer server = RedisServer.start()) {
			long pid = server.pid();
			server.stop();
			assertThat(server.isRunning()).isFalse();
			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
		}
	}

	@Test
	void closeLeavesNoProcessEvenWhenPaused() {
		RedisServer server = RedisServer.start();
		long pid = server.pid();
		server.pause();
		server.close();
		server.close();
		assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
	}

	@Test
	void startFailureShowsTheServerOutput() {
		assertThatIllegalStateException().isThrownBy(() -> RedisServer.start("--no-such-option", "x"))
			.withMessageContaining("no-such-option")
			.withMessageContaining(".log");
	}

	@Test
	void restartFailsWhenThePortWasTaken() throws IOException {
		try (RedisServer server = RedisServer.start()) {
			server.kill();
			try (ServerSocket squatter = new ServerSocket(server.port(), 1, InetAddress.getByName(server.host()))) {
				assertThatIllegalStateException().isThrownBy(server::restart)
					.withMessageContaining("port " + server.port() + " is taken");
			}
		}
	}

	@Test
	void passesExtraArguments() {
		try (RedisServer server = RedisServer.start("--requirepass", "secret")) {
			assertThatExceptionOfType(RedisConnectionException.class).isThrownBy(() -> connect(server))
				.withStackTraceContaining("NOAUTH");
			try (RedisTestClient client = RedisTestClient.connect("redis://secret@127.0.0.1:" + server.port(),
					COMMAND_TIMEOUT)) {
				client.sync().set("key", "value");
				server.flushAll();
				assertThat(client.sync().dbsize()).isZero();
			}
		}
	}

	@Test
	void runsAReplicaOfAnotherServer() {
		try (RedisServer primary = RedisServer.start();
				RedisServer replica = RedisServer.start("--replicaof", primary.host(), String.valueOf(primary.port()));
				RedisTestClient primaryClient = connect(primary);
				RedisTestClient replicaClient = connect(replica)) {
			primaryClient.sync().set("key", "value");
			await().atMost(WAIT).untilAsserted(() -> assertThat(replicaClient.sync().get("key")).isEqualTo("value"));
		}
	}

	@Test
	void serverDiesWhenItsJvmIsKilled() {
		try (RivalJvm holder = RivalJvm.start(ServerHolder.class)) {
			long serverPid = Long.parseLong(holder.awaitLine("SERVER ", WAIT).substring("SERVER ".length()));
			holder.kill();
			awaitDeath(serverPid);
		}
	}

	@Test
	void serverDiesWhenItsJvmExits() {
		try (RivalJvm holder = RivalJvm.start(ServerHolder.class)) {
			long serverPid = Long.parseLong(holder.awaitLine("SERVER ", WAIT).substring("SERVER ".length()));
			holder.send("exit");
			assertThat(holder.awaitExit(WAIT)).isZero();
			awaitDeath(serverPid);
		}
	}

	private static void awaitDeath(long pid) {
		await().atMost(WAIT).until(() -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty());
	}

	private static RedisTestClient connect(RedisServer server) {
		return RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT);
	}

	/**
	 * Starts a server, prints its pid and leaves it running until a line arrives on
	 * standard input.
	 */
	static class ServerHolder {

		public static void main(String[] args) throws IOException {
			RedisServer server = RedisServer.start();
			System.out.println("SERVER " + server.pid());
			new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		}

	}

}
