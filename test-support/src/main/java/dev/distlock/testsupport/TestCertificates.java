package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority and a server certificate it signed for
 * {@code 127.0.0.1} and {@code localhost}, as PEM files made with {@code openssl}, for
 * tests of TLS connections.
 *
 * @param caCertificate the CA certificate, what clients trust
 * @param serverCertificate the server certificate
 * @param serverKey the server's private key, unencrypted
 */
public record TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey) {

	private static final long OPENSSL_TIMEOUT_SECONDS = 30;

	/**
	 * Tells whether {@code openssl} can be run.
	 * @return {@code true} if {@code openssl version} succeeds
	 */
	public static boolean opensslAvailable() {
		try {
			Process process = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
			return process.waitFor(OPENSSL_TIMEOUT_SECONDS, TimeUnit.SECONDS) && process.exitValue() == 0;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Creates a CA and a server certificate in the given directory.
	 * @param directory where to write the PEM files
	 * @return the files
	 */
	public static TestCertificates create(Path directory) {
		Path caKey = directory.resolve("ca.key");
		Path caCertificate = directory.resolve("ca.crt");
		Path serverKey = directory.resolve("server.key");
		Path serverRequest = directory.resolve("server.csr");
		Path serverCertificate = directory.resolve("server.crt");
		Path extensions = directory.resolve("server.ext");
		try {
			Files.writeString(extensions, "subjectAltName=IP:127.0.0.1,DNS:localhost\n", StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.toString(), "-out",
				caCertificate.toString(), "-days", "2", "-subj", "/CN=distlock test CA");
		openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", serverKey.toString(), "-out",
				serverRequest.toString(), "-subj", "/CN=127.0.0.1");
		openssl(directory, "x509", "-req", "-in", serverRequest.toString(), "-CA", caCertificate.toString(), "-CAkey",
				caKey.toString(), "-CAcreateserial", "-out", serverCertificate.toString(), "-days", "2", "-extfile",
				extensions.toString());
		return new TestCertificates(caCertificate, serverCertificate, serverKey);
	}

	private static void openssl(Path directory, String... args) {
		List<String> command = new java.util.ArrayList<>(List.of("openssl"));
		command.addAll(List.of(args));
		try {
			Process process = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(OPENSSL_TIMEOUT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

}
