package dev.distlock.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link ServerUser}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerUserTests {

	@TempDir
	Path temp;

	@Test
	void theJvmUserRunsCommandsAsTheyAreAndReachesAnything() throws IOException {
		ServerUser user = ServerUser.jvmUser();
		assertThat(user.isOtherThanJvmUser()).isFalse();
		assertThat(user.command("id", "-u")).containsExactly("id", "-u");
		Path closed = Files.createDirectory(this.temp.resolve("closed"));
		Files.setPosixFilePermissions(closed, TarXzArchive.permissions(0700));
		assertThatNoException().isThrownBy(() -> user.requireReachable(closed));
	}

	@Test
	void theUnprivilegedUserCannotReachAFolderBehindOneThatShutsOthersOut() throws IOException {
		assumeTrue(Executables.onPath("setpriv").isPresent(), "no setpriv on the PATH");
		ServerUser user = ServerUser.unprivileged();
		Path closed = Files.createDirectory(this.temp.resolve("closed"));
		Files.setPosixFilePermissions(closed, TarXzArchive.permissions(0700));
		Path inside = Files.createDirectory(closed.resolve("inside"));
		Files.setPosixFilePermissions(this.temp, TarXzArchive.permissions(0755));
		assertThatIllegalStateException().isThrownBy(() -> user.requireReachable(inside))
			.withMessage(
					"%s cannot reach %s: %s (rwx------) does not let other users through; keep it under a "
							+ "folder every user can enter, such as /tmp (-Djava.io.tmpdir=/tmp)",
					user, inside, closed);
		Files.setPosixFilePermissions(closed, TarXzArchive.permissions(0711));
		assertThatNoException().isThrownBy(() -> user.requireReachable(inside));
	}

	@Test
	void aRootJvmRunsServersAsTheUnprivilegedUser() {
		assumeTrue("0".equals(Executables.output("id", "-u")), "the JVM does not run as root");
		ServerUser user = ServerUser.forThisJvm();
		assertThat(user.isOtherThanJvmUser()).isTrue();
		assertThat(Executables.output(user.command("id", "-un").toArray(String[]::new)))
			.isEqualTo(ServerUser.UNPRIVILEGED);
	}

	@Test
	void handOverMakesTheUnprivilegedUserTheOwnerOfTheFolderAlone() throws IOException {
		assumeTrue("0".equals(Executables.output("id", "-u")), "only root can hand folders over");
		ServerUser user = ServerUser.unprivileged();
		Files.setPosixFilePermissions(this.temp, TarXzArchive.permissions(0755));
		Path folder = Files.createDirectory(this.temp.resolve("folder"));
		Path file = Files.createFile(folder.resolve("file"));
		user.handOver(folder);
		int unprivileged = Integer.parseInt(Executables.output("id", "-u", ServerUser.UNPRIVILEGED));
		assertThat(Files.getAttribute(folder, "unix:uid")).isEqualTo(unprivileged);
		assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(0);
	}

}
