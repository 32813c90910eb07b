package dev.distlock.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RivalJvm}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RivalJvmTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final Duration SHORT_WAIT = Duration.ofMillis(300);

	@Test
	void echoesLinesUntilKilled() {
		try (RivalJvm rival = RivalJvm.start(Echo.class)) {
			rival.awaitLine("READY", WAIT);
			rival.send("hello");
			assertThat(rival.awaitLine("ECHO ", WAIT)).isEqualTo("ECHO hello");
			long pid = rival.pid();
			rival.kill();
			assertThat(rival.awaitExit(WAIT)).isNotZero();
			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
		}
	}

	@Test
	void passesArgumentsSystemPropertiesAndJvmOptions() {
		try (RivalJvm rival = RivalJvm.builder(Echo.class)
			.systemProperty("rival.name", "bob")
			.jvmOptions("-Xmx64m")
			.args("a", "b")
			.start()) {
			rival.awaitLine("READY", WAIT);
			assertThat(rival.lines()).containsExactly("ARGS a b", "PROPERTY bob", "READY");
		}
	}

	@Test
	void reportsTheExitCode() {
		try (RivalJvm rival = RivalJvm.start(Echo.class)) {
			rival.send("exit");
			assertThat(rival.awaitExit(WAIT)).isEqualTo(3);
		}
	}

	@Test
	void pausedRivalAnswersOnlyAfterResume() {
		try (RivalJvm rival = RivalJvm.start(Echo.class)) {
			rival.awaitLine("READY", WAIT);
			rival.pause();
			rival.send("hello");
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> rival.awaitLine("ECHO ", SHORT_WAIT));
			rival.resume();
			assertThat(rival.awaitLine("ECHO ", WAIT)).isEqualTo("ECHO hello");
		}
	}

	@Test
	void awaitLineFailureShowsTheOutput() {
		try (RivalJvm rival = RivalJvm.start(Echo.class)) {
			rival.awaitLine("READY", WAIT);
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> rival.awaitLine("NEVER", SHORT_WAIT))
				.withMessageContaining("READY");
		}
	}

	@Test
	void awaitLineFailsFastWhenTheRivalExits() {
		try (RivalJvm rival = RivalJvm.start(Echo.class)) {
			rival.send("exit");
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> rival.awaitLine("NEVER", WAIT))
				.withMessageContaining("closed its output");
		}
	}

	@Test
	void closeLeavesNoProcess() {
		RivalJvm rival = RivalJvm.start(Echo.class);
		long pid = rival.pid();
		rival.close();
		rival.close();
		assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
	}

	/**
	 * Prints its arguments, the {@code rival.name} property and {@code READY}, then
	 * echoes standard input until it reads {@code exit}.
	 */
	static class Echo {

		public static void main(String[] args) throws IOException {
			System.out.println("ARGS " + String.join(" ", args));
			System.out.println("PROPERTY " + System.getProperty("rival.name"));
			System.out.println("READY");
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			for (String line = in.readLine(); line != null; line = in.readLine()) {
				if (line.equals("exit")) {
					System.exit(3);
				}
				System.out.println("ECHO " + line);
			}
		}

	}

}
