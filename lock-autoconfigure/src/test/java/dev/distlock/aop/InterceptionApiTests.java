package dev.distlock.aop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interception shows only the types that users and the auto-configuration name: its entry
 * point, the advisors it builds, the exception that reports a bad annotation, the root of
 * the annotations' expressions and the transaction listener users add by hand without the
 * auto-configuration. Read from the main sources, so that a new public type is a
 * decision.
 */
class InterceptionApiTests {

	private static final Path PACKAGE = Path.of("src", "main", "java", "dev", "distlock", "aop");

	private static final Pattern PUBLIC_TYPE = Pattern
		.compile("(?m)^public (?:final |abstract |sealed )*(?:class|interface|record|enum|@interface) (\\w+)");

	@Test
	void interceptionHasFivePublicTypes() throws IOException {
		assertThat(publicTypes()).containsExactly("DistLockAdvisor", "DistLockInterception",
				"InvalidLockAnnotationException", "LockExpressionRoot", "LockLossTransactionListener");
	}

	private static Set<String> publicTypes() throws IOException {
		Set<String> types = new TreeSet<>();
		try (Stream<Path> files = Files.list(PACKAGE)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				Matcher matcher = PUBLIC_TYPE.matcher(Files.readString(file));
				while (matcher.find()) {
					types.add(matcher.group(1));
				}
			}
		}
		return types;
	}

}
