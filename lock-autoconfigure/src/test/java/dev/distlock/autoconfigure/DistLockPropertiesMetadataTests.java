package dev.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the configuration metadata of {@link DistLockProperties} that
 * {@code spring-boot-configuration-processor} generates (merged with
 * {@code additional-spring-configuration-metadata.json}), so that IDEs complete and
 * document every {@code distlock.*} property.
 */
class DistLockPropertiesMetadataTests {

	private static final List<String> PROPERTIES = List.of("distlock.enabled", "distlock.store", "distlock.key-prefix",
			"distlock.wait-time", "distlock.lease-time", "distlock.on-failure", "distlock.on-lost", "distlock.order",
			"distlock.max-keys-per-call", "distlock.lock-delay", "distlock.fencing.retention", "distlock.leader.names",
			"distlock.redis.replicas-to-ack", "distlock.redis.replica-ack-timeout", "distlock.redlock.nodes",
			"distlock.redlock.drift-factor", "distlock.jdbc.table-name", "distlock.jdbc.initialize-schema");

	private static final String REMOVED_CLIENT = "distlock.redis.client";

	private final DocumentContext metadata = readMetadata();

	@Test
	void listsEveryDistlockPropertyAndTheRemovedOne() {
		List<String> names = this.metadata.read("$.properties[*].name");
		assertThat(names.stream().filter((name) -> name.startsWith("distlock.") && !name.equals(REMOVED_CLIENT)))
			.containsExactlyInAnyOrderElementsOf(PROPERTIES);
	}

	@Test
	void reportsTheRemovedClientPropertyAsAnErrorThatSaysWhatDecidesNow() {
		List<Map<String, Object>> deprecations = this.metadata
			.read("$.properties[?(@.name == '" + REMOVED_CLIENT + "')].deprecation");
		assertThat(deprecations).singleElement()
			.satisfies((deprecation) -> assertThat(deprecation).containsEntry("level", "error")
				.extractingByKey("reason")
				.asString()
				.contains("LettuceConnectionFactory"));
	}

	@Test
	void describesEveryPropertyInPlainText() {
		for (String name : PROPERTIES) {
			assertThat(property(name)).as(name)
				.extractingByKey("description")
				.asString()
				.isNotBlank()
				.endsWith(".")
				.doesNotStartWith("The ")
				.doesNotStartWith("A ")
				.doesNotContain("{@")
				.doesNotContain("<p>");
		}
	}

	@Test
	void describesBooleanPropertiesWithWhether() {
		assertThat(property("distlock.enabled")).containsEntry("type", "java.lang.Boolean")
			.extractingByKey("description")
			.asString()
			.startsWith("Whether");
	}

	@Test
	void documentsTheDefaultOfEveryProperty() {
		for (String name : PROPERTIES) {
			assertThat(property(name)).as(name).containsKey("defaultValue");
		}
		assertThat(property("distlock.store")).containsEntry("defaultValue", "redis");
		assertThat(property("distlock.key-prefix")).containsEntry("defaultValue", "lock:");
		assertThat(property("distlock.lease-time")).containsEntry("defaultValue", "30s");
		assertThat(property("distlock.on-failure")).containsEntry("defaultValue", "throw");
		assertThat(property("distlock.on-lost")).containsEntry("defaultValue", "throw");
		assertThat(property("distlock.order")).containsEntry("defaultValue", 2147483547);
		assertThat(property("distlock.max-keys-per-call")).containsEntry("defaultValue", 100);
		assertThat(property("distlock.redis.replica-ack-timeout")).containsEntry("defaultValue", "100ms");
		assertThat(property("distlock.jdbc.table-name")).containsEntry("defaultValue", "distlock_fence");
		assertThat(property("distlock.jdbc.initialize-schema")).containsEntry("defaultValue", "embedded");
		assertThat(property("distlock.leader.names")).containsEntry("defaultValue", List.of());
		assertThat(property("distlock.redlock.nodes")).containsEntry("defaultValue", List.of());
		assertThat(property("distlock.redlock.drift-factor")).containsEntry("defaultValue", 0.01);
	}

	@Test
	void usesDurationTypeForTimes() {
		for (String name : List.of("distlock.wait-time", "distlock.lease-time", "distlock.redis.replica-ack-timeout")) {
			assertThat(property(name)).as(name).containsEntry("type", "java.time.Duration");
		}
	}

	@Test
	void hintsTheValuesOfOnFailureWithDescriptions() {
		assertThat(hintValues("distlock.on-failure")).extracting((value) -> value.get("value"))
			.containsExactly("throw", "skip");
		assertThat(hintValues("distlock.on-failure"))
			.allSatisfy((value) -> assertThat(value).extractingByKey("description").asString().isNotBlank());
	}

	@Test
	void hintsTheValuesOfOnLostWithDescriptions() {
		assertThat(hintValues("distlock.on-lost")).extracting((value) -> value.get("value"))
			.containsExactly("throw", "log");
		assertThat(hintValues("distlock.on-lost"))
			.allSatisfy((value) -> assertThat(value).extractingByKey("description").asString().isNotBlank());
	}

	private Map<String, Object> property(String name) {
		List<Map<String, Object>> matches = this.metadata.read("$.properties[?(@.name == '" + name + "')]");
		assertThat(matches).as(name).hasSize(1);
		return matches.get(0);
	}

	private List<Map<String, Object>> hintValues(String name) {
		List<List<Map<String, Object>>> matches = this.metadata.read("$.hints[?(@.name == '" + name + "')].values");
		assertThat(matches).as("hints of " + name).hasSize(1);
		return matches.get(0);
	}

	private static DocumentContext readMetadata() {
		try {
			for (URL url : Collections.list(DistLockPropertiesMetadataTests.class.getClassLoader()
				.getResources("META-INF/spring-configuration-metadata.json"))) {
				try (InputStream in = url.openStream()) {
					DocumentContext document = JsonPath.parse(in);
					List<String> groups = document.read("$.groups[*].name");
					if (groups.contains("distlock")) {
						return document;
					}
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read configuration metadata", ex);
		}
		throw new IllegalStateException("No META-INF/spring-configuration-metadata.json with the 'distlock' group"
				+ " on the classpath: is spring-boot-configuration-processor configured?");
	}

}
