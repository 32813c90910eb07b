package dev.distlock.testsupport;

import java.util.Locale;

/**
 * Names the operating system and CPU of this JVM the way bundles of native binaries do,
 * such as {@code linux-amd64} or {@code darwin-arm64}.
 */
final class Platform {

	private Platform() {
	}

	/**
	 * Returns this JVM's platform as {@code os-arch}.
	 */
	static String current() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		String osName = os.contains("mac") || os.contains("darwin") ? "darwin" : os.replace(' ', '_');
		String archName = switch (arch) {
			case "x86_64", "amd64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			default -> arch;
		};
		return osName + "-" + archName;
	}

}
