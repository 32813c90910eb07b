package dev.distlock.autoconfigure;

import java.io.File;
import java.lang.annotation.Annotation;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that distlock's auto-configurations can be ordered on the class path the starter
 * brings: Spring reads every attribute of {@link AutoConfiguration @AutoConfiguration},
 * and one that names a class of an optional dependency by its {@code Class} fails to be
 * read (and is logged as a warning) in every application without that dependency.
 */
class AutoConfigurationOrderTests {

	/**
	 * The jars of distlock's optional dependencies whose auto-configurations distlock's
	 * own may come before or after.
	 */
	private static final Pattern OPTIONAL_JAR = Pattern.compile(
			"(spring-boot-micrometer-metrics|spring-boot-micrometer-observation|spring-boot-jdbc|spring-boot-actuator"
					+ "|spring-boot-actuator-autoconfigure|spring-boot-health)-\\d.*\\.jar");

	@Test
	void everyAutoConfigurationsOrderIsReadableWithoutTheOptionalDependencies() throws Exception {
		List<String> unreadable = new ArrayList<>();
		try (URLClassLoader starterClassPath = new URLClassLoader(withoutOptionalJars(),
				ClassLoader.getPlatformClassLoader())) {
			@SuppressWarnings("unchecked")
			Class<? extends Annotation> autoConfiguration = (Class<? extends Annotation>) starterClassPath
				.loadClass(AutoConfiguration.class.getName());
			for (String name : ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())) {
				Class<?> type = name.startsWith("dev.distlock.") ? loadable(starterClassPath, name) : null;
				if (type == null) {
					continue;
				}
				try {
					Annotation annotation = type.getAnnotation(autoConfiguration);
					autoConfiguration.getMethod("before").invoke(annotation);
					autoConfiguration.getMethod("after").invoke(annotation);
				}
				catch (Exception ex) {
					unreadable.add(name + ": " + NestedExceptionUtils.getMostSpecificCause(ex));
				}
			}
		}
		assertThat(unreadable).isEmpty();
	}

	/**
	 * Return distlock's auto-configuration class, or {@code null} when it cannot be
	 * loaded at all: one whose superclass is in an optional dependency, which Spring Boot
	 * skips by its {@code @ConditionalOnClass} without loading it.
	 */
	private static @Nullable Class<?> loadable(ClassLoader classLoader, String name) throws ClassNotFoundException {
		try {
			return classLoader.loadClass(name);
		}
		catch (NoClassDefFoundError ex) {
			return null;
		}
	}

	private static URL[] withoutOptionalJars() throws MalformedURLException {
		List<URL> urls = new ArrayList<>();
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			File file = new File(entry);
			if (!OPTIONAL_JAR.matcher(file.getName()).matches()) {
				urls.add(file.toURI().toURL());
			}
		}
		assertThat(urls).hasSizeGreaterThan(10);
		return urls.toArray(URL[]::new);
	}

}
