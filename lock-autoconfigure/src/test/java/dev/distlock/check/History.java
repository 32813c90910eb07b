package dev.distlock.check;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * An append-only file of events, one line each: a kind followed by {@code key=value}
 * fields without spaces. Every line is flushed at once so that a {@code SIGKILL} loses
 * nothing recorded before it. Timestamps are wall-clock microseconds: every JVM on one
 * machine reads the same clock, and each timestamp is taken on the side of the event that
 * keeps the checker's conclusions sound.
 */
final class History implements AutoCloseable {

	private final BufferedWriter out;

	private History(BufferedWriter out) {
		this.out = out;
	}

	/**
	 * Open a history file for appending, creating it if needed.
	 * @param file the file
	 * @return the history
	 */
	static History appendTo(Path file) {
		try {
			return new History(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not open history " + file, ex);
		}
	}

	/**
	 * Return the wall-clock time in microseconds.
	 * @return microseconds since the epoch
	 */
	static long now() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	/**
	 * Record one event.
	 * @param kind the event's kind, such as {@code ACQ}
	 * @param fields alternating keys and values; values must not contain spaces
	 */
	synchronized void record(String kind, Object... fields) {
		StringBuilder line = new StringBuilder(kind);
		for (int i = 0; i + 1 < fields.length; i += 2) {
			line.append(' ').append(fields[i]).append('=').append(String.valueOf(fields[i + 1]).replace(' ', '_'));
		}
		try {
			this.out.write(line.append('\n').toString());
			this.out.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not record " + line, ex);
		}
	}

	/**
	 * Run a call and record it as a {@code CALL} line with its outcome: {@code OK}, or
	 * the simple name of the exception it threw, which is not passed on.
	 * @param api what was called
	 * @param call the call
	 */
	void recordCall(String api, Runnable call) {
		String outcome = "OK";
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			outcome = ex.getClass().getSimpleName();
		}
		record("CALL", "api", api, "outcome", outcome);
	}

	@Override
	public synchronized void close() {
		try {
			this.out.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not close history", ex);
		}
	}

}
