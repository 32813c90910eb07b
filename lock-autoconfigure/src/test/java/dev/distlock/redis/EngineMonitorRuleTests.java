package dev.distlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule over the compiled main classes of {@code dev.distlock}: no method waits on a
 * monitor with {@code Object.wait} or {@code TimeUnit.timedWait}. On JDK 21 a virtual
 * thread that waits inside a monitor pins its carrier thread, so an application whose
 * virtual threads wait for locks could run out of carriers. Waiting goes through
 * {@code java.util.concurrent} locks and conditions, or {@code LockSupport.park},
 * instead.
 */
@Timeout(30)
class EngineMonitorRuleTests {

	private static final Set<String> MONITOR_WAITS = Set.of("java/lang/Object.wait",
			"java/util/concurrent/TimeUnit.timedWait");

	@Test
	void noEngineCodeWaitsInsideAMonitor() throws IOException {
		Path classes = mainClasses().resolve("dev/distlock");
		assertThat(classes).isDirectory();
		List<Path> classFiles;
		try (Stream<Path> files = Files.walk(classes)) {
			classFiles = files.filter((file) -> file.toString().endsWith(".class")).toList();
		}
		assertThat(classFiles).as("scanned").contains(classes.resolve("redis/ReleaseSignals.class"));
		List<String> found = new ArrayList<>();
		classFiles.forEach((file) -> scan(file, found));
		assertThat(found).as("methods that wait inside a monitor").isEmpty();
	}

	/**
	 * Add the methods of one class file that call a monitor wait, as
	 * {@code Class.method calls Owner.wait}.
	 */
	private static void scan(Path classFile, List<String> found) {
		ClassReader reader;
		try {
			reader = new ClassReader(Files.readAllBytes(classFile));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		String className = reader.getClassName().replace('/', '.');
		reader.accept(new ClassVisitor(Opcodes.ASM9) {

			@Override
			public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
					String[] exceptions) {
				return new MethodVisitor(Opcodes.ASM9) {

					@Override
					public void visitMethodInsn(int opcode, String owner, String name, String calledDescriptor,
							boolean isInterface) {
						String called = owner + "." + name;
						if (MONITOR_WAITS.contains(called)) {
							found.add(className + "." + method + " calls " + called.replace('/', '.'));
						}
					}

				};
			}

		}, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
	}

	private static Path mainClasses() {
		try {
			return Path.of(RedisLockRegistry.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
