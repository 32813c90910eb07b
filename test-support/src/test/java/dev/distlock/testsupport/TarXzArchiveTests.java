package dev.distlock.testsupport;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * Tests for {@link TarXzArchive} on archives made by the test.
 */
class TarXzArchiveTests {

	@TempDir
	Path target;

	@Test
	void extractsFilesWithTheirPermissionsFoldersAndSymbolicLinks() throws IOException {
		byte[] archive = archive((tar) -> {
			directory(tar, "bin/", 0755);
			file(tar, "bin/initdb", 0755, "#!/bin/sh\n");
			directory(tar, "lib/", 0755);
			file(tar, "lib/libpq.so.5.17", 0644, "library");
			TarArchiveEntry link = new TarArchiveEntry("lib/libpq.so.5", TarArchiveEntry.LF_SYMLINK);
			link.setLinkName("libpq.so.5.17");
			tar.putArchiveEntry(link);
			tar.closeArchiveEntry();
		});
		TarXzArchive.extract(new ByteArrayInputStream(archive), this.target);
		assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(this.target.resolve("bin/initdb"))))
			.isEqualTo("rwxr-xr-x");
		assertThat(
				PosixFilePermissions.toString(Files.getPosixFilePermissions(this.target.resolve("lib/libpq.so.5.17"))))
			.isEqualTo("rw-r--r--");
		assertThat(Files.readSymbolicLink(this.target.resolve("lib/libpq.so.5"))).isEqualTo(Path.of("libpq.so.5.17"));
		assertThat(this.target.resolve("lib/libpq.so.5")).hasContent("library");
	}

	@Test
	void refusesAnEntryOutsideTheTarget() throws IOException {
		byte[] archive = archive((tar) -> file(tar, "../escaped", 0644, "outside"));
		Path inner = Files.createDirectory(this.target.resolve("inner"));
		assertThatIOException().isThrownBy(() -> TarXzArchive.extract(new ByteArrayInputStream(archive), inner))
			.withMessage("Archive entry ../escaped lies outside " + inner);
		assertThat(this.target.resolve("escaped")).doesNotExist();
	}

	@Test
	void permissionsFollowTheUnixMode() {
		assertThat(PosixFilePermissions.toString(TarXzArchive.permissions(0750))).isEqualTo("rwxr-x---");
		assertThat(PosixFilePermissions.toString(TarXzArchive.permissions(0100644))).isEqualTo("rw-r--r--");
	}

	private static byte[] archive(Entries entries) throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new XZOutputStream(bytes, new LZMA2Options()))) {
			entries.write(tar);
		}
		return bytes.toByteArray();
	}

	private static void directory(TarArchiveOutputStream tar, String name, int mode) throws IOException {
		TarArchiveEntry entry = new TarArchiveEntry(name);
		entry.setMode(TarArchiveEntry.DEFAULT_DIR_MODE & ~0777 | mode);
		tar.putArchiveEntry(entry);
		tar.closeArchiveEntry();
	}

	private static void file(TarArchiveOutputStream tar, String name, int mode, String content) throws IOException {
		byte[] data = content.getBytes(StandardCharsets.UTF_8);
		TarArchiveEntry entry = new TarArchiveEntry(name, true);
		entry.setMode(TarArchiveEntry.DEFAULT_FILE_MODE & ~0777 | mode);
		entry.setSize(data.length);
		tar.putArchiveEntry(entry);
		tar.write(data);
		tar.closeArchiveEntry();
	}

	/**
	 * Writes the entries of a test archive.
	 */
	@FunctionalInterface
	private interface Entries {

		void write(TarArchiveOutputStream tar) throws IOException;

	}

}
