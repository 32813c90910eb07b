package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The operating system user that runs servers which refuse to run as root, such as
 * PostgreSQL.
 * <p>
 * When the JVM runs as root (as CI does), commands run as {@value #UNPRIVILEGED} through
 * {@code setpriv} (util-linux), which replaces itself with the command so that the
 * process the JVM started is the server itself, and the folders the server writes to are
 * handed over to that user. Otherwise commands run as the JVM's own user and nothing is
 * handed over.
 */
final class ServerUser {

	/**
	 * The user that servers run as when the JVM runs as root.
	 */
	static final String UNPRIVILEGED = "nobody";

	private static @Nullable ServerUser current;

	private final List<String> commandPrefix;

	private final int uid;

	private final int gid;

	private ServerUser(List<String> commandPrefix, int uid, int gid) {
		this.commandPrefix = commandPrefix;
		this.uid = uid;
		this.gid = gid;
	}

	/**
	 * Returns the user for this JVM, working it out on first use.
	 */
	static synchronized ServerUser forThisJvm() {
		if (current == null) {
			current = "0".equals(Executables.output("id", "-u")) ? unprivileged() : jvmUser();
		}
		return current;
	}

	/**
	 * Returns the user that runs commands as they are.
	 */
	static ServerUser jvmUser() {
		return new ServerUser(List.of(), -1, -1);
	}

	/**
	 * Returns the user that runs commands as {@value #UNPRIVILEGED} (which only root can
	 * do).
	 */
	static ServerUser unprivileged() {
		Path setpriv = Executables.onPath("setpriv")
			.orElseThrow(() -> new IllegalStateException("Running as root, the JVM needs setpriv (util-linux) on "
					+ "the PATH to run servers as " + UNPRIVILEGED));
		int uid = Integer.parseInt(Executables.output("id", "-u", UNPRIVILEGED));
		int gid = Integer.parseInt(Executables.output("id", "-g", UNPRIVILEGED));
		return new ServerUser(List.of(setpriv.toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--"),
				uid, gid);
	}

	/**
	 * Tells whether commands run as another user than the JVM's.
	 */
	boolean isOtherThanJvmUser() {
		return !this.commandPrefix.isEmpty();
	}

	/**
	 * Returns {@code command} as this user runs it.
	 */
	List<String> command(String... command) {
		List<String> full = new ArrayList<>(this.commandPrefix);
		full.addAll(Arrays.asList(command));
		return full;
	}

	/**
	 * Makes this user the owner of {@code directory} (not of what it holds), after
	 * checking that the user can reach it.
	 */
	void handOver(Path directory) {
		if (!isOtherThanJvmUser()) {
			return;
		}
		requireReachable(directory.toAbsolutePath().getParent());
		try {
			Files.setAttribute(directory, "unix:uid", this.uid);
			Files.setAttribute(directory, "unix:gid", this.gid);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not hand " + directory + " over to " + this, ex);
		}
	}

	/**
	 * Checks that this user can enter {@code directory}: every folder on the way must let
	 * other users through.
	 * @throws IllegalStateException if one does not
	 */
	void requireReachable(Path directory) {
		if (!isOtherThanJvmUser()) {
			return;
		}
		for (Path folder = directory.toAbsolutePath(); folder != null; folder = folder.getParent()) {
			Set<PosixFilePermission> permissions = permissions(folder);
			if (!permissions.contains(PosixFilePermission.OTHERS_EXECUTE)) {
				throw new IllegalStateException(this + " cannot reach " + directory + ": " + folder + " ("
						+ PosixFilePermissions.toString(permissions) + ") does not let other users through; "
						+ "keep it under a folder every user can enter, such as /tmp (-Djava.io.tmpdir=/tmp)");
			}
		}
	}

	@Override
	public String toString() {
		return isOtherThanJvmUser() ? UNPRIVILEGED + " (uid " + this.uid + ")" : "the JVM's user";
	}

	private static Set<PosixFilePermission> permissions(Path folder) {
		try {
			return Files.getPosixFilePermissions(folder);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the permissions of " + folder, ex);
		}
	}

}
