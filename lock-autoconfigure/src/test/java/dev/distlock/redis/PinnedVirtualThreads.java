package dev.distlock.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A Flight Recorder recording of the times a virtual thread blocked while pinned to its
 * carrier ({@code jdk.VirtualThreadPinned}, however briefly), with their stacks. JDK 21
 * and later only.
 */
final class PinnedVirtualThreads implements AutoCloseable {

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private final Recording recording = new Recording();

	private PinnedVirtualThreads() {
		this.recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
		this.recording.start();
	}

	/**
	 * Start recording.
	 * @return the recording; close it after use
	 */
	static PinnedVirtualThreads record() {
		return new PinnedVirtualThreads();
	}

	/**
	 * Stop recording and return the stack of every time a virtual thread was pinned, each
	 * as {@code Class.method} frames, innermost first.
	 * @return the stacks
	 * @throws IOException if the recording cannot be read
	 */
	List<List<String>> stop() throws IOException {
		this.recording.stop();
		Path file = Files.createTempFile("distlock-pinned-", ".jfr");
		try {
			this.recording.dump(file);
			return RecordingFile.readAllEvents(file)
				.stream()
				.filter((event) -> event.getEventType().getName().equals(PINNED))
				.map(PinnedVirtualThreads::frames)
				.toList();
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	private static List<String> frames(RecordedEvent event) {
		RecordedStackTrace stack = event.getStackTrace();
		if (stack == null) {
			return List.of();
		}
		return stack.getFrames()
			.stream()
			.map(RecordedFrame::getMethod)
			.map((method) -> method.getType().getName() + "." + method.getName())
			.toList();
	}

	@Override
	public void close() {
		this.recording.close();
	}

}
