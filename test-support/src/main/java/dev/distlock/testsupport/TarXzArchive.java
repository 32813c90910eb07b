package dev.distlock.testsupport;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Unpacks a {@code .tar.xz} archive with its files' permissions and symbolic links, in
 * Java, so that neither {@code tar} nor {@code xz} need be installed.
 */
final class TarXzArchive {

	private static final PosixFilePermission[] PERMISSIONS_BY_BIT = { PosixFilePermission.OTHERS_EXECUTE,
			PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE,
			PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE,
			PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ };

	private TarXzArchive() {
	}

	/**
	 * Unpacks the archive read from {@code in} into {@code directory}, which must exist.
	 * Directories and files get the permissions the archive gives them, so that
	 * executables stay executable.
	 * @throws IOException if the archive cannot be read or an entry would land outside
	 * {@code directory}
	 */
	static void extract(InputStream in, Path directory) throws IOException {
		Path root = directory.toAbsolutePath().normalize();
		try (TarArchiveInputStream tar = new TarArchiveInputStream(
				new XZInputStream(new BufferedInputStream(in, 1 << 16)))) {
			for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
				Path target = root.resolve(entry.getName()).normalize();
				if (!target.startsWith(root)) {
					throw new IOException("Archive entry " + entry.getName() + " lies outside " + root);
				}
				if (entry.isDirectory()) {
					Files.createDirectories(target);
					Files.setPosixFilePermissions(target, permissions(entry.getMode()));
				}
				else if (entry.isSymbolicLink()) {
					Files.createDirectories(target.getParent());
					Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
				}
				else if (entry.isFile()) {
					Files.createDirectories(target.getParent());
					Files.copy(tar, target);
					Files.setPosixFilePermissions(target, permissions(entry.getMode()));
				}
				else {
					throw new IOException("Archive entry " + entry.getName() + " is neither a file, a directory "
							+ "nor a symbolic link");
				}
			}
		}
	}

	/**
	 * Returns the permissions of a Unix mode such as {@code 0755}.
	 */
	static Set<PosixFilePermission> permissions(int mode) {
		Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
		for (int bit = 0; bit < PERMISSIONS_BY_BIT.length; bit++) {
			if ((mode & (1 << bit)) != 0) {
				permissions.add(PERMISSIONS_BY_BIT[bit]);
			}
		}
		return permissions;
	}

}
