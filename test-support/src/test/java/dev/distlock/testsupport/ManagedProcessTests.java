package dev.distlock.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ManagedProcess} on shell processes that trap signals.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManagedProcessTests {

	/**
	 * A script that exits with 7 on {@code SIGUSR1} and ignores {@code SIGTERM}. Not
	 * {@code SIGINT}: a build started as a background job without job control runs with
	 * {@code SIGINT} ignored, and a shell cannot trap a signal ignored on its entry.
	 */
	private static final String EXITS_ON_USR1_IGNORES_TERM = "trap '' TERM; trap 'exit 7' USR1; echo ready; "
			+ "while :; do sleep 0.1; done";

	private static final Duration GRACE = Duration.ofSeconds(10);

	@TempDir
	Path scratch;

	@Test
	void terminateWithASignalLetsTheProcessHandleIt() throws IOException {
		try (ManagedProcess process = startReady(EXITS_ON_USR1_IGNORES_TERM)) {
			process.terminate("USR1", GRACE);
			assertThat(process.isAlive()).isFalse();
			assertThat(process.awaitExit(Duration.ZERO)).isEqualTo(OptionalInt.of(7));
		}
	}

	@Test
	void terminateWithASignalKillsAProcessThatIgnoresIt() throws IOException {
		try (ManagedProcess process = startReady(EXITS_ON_USR1_IGNORES_TERM)) {
			process.terminate("TERM", Duration.ofMillis(300));
			assertThat(process.isAlive()).isFalse();
			assertThat(process.awaitExit(Duration.ZERO)).isNotEqualTo(OptionalInt.of(7));
		}
	}

	@Test
	void terminateWithASignalAcceptsAProcessThatHasExited() throws IOException {
		try (ManagedProcess process = startReady("echo ready")) {
			assertThat(process.awaitExit(GRACE)).isEqualTo(OptionalInt.of(0));
			process.terminate("INT", GRACE);
			assertThat(process.isAlive()).isFalse();
		}
	}

	/**
	 * Starts {@code script} and waits until it has printed {@code ready}, so that its
	 * traps are in place.
	 */
	private ManagedProcess startReady(String script) throws IOException {
		Path log = Files.createTempFile(this.scratch, "sh-", ".log");
		ManagedProcess process = ManagedProcess.start("sh", new ProcessBuilder("sh", "-c", script), log);
		BufferedReader output = new BufferedReader(
				new InputStreamReader(process.process().getInputStream(), StandardCharsets.UTF_8));
		assertThat(output.readLine()).isEqualTo("ready");
		return process;
	}

}
