package dev.distlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parts of distlock depend on each other in one direction, read from the import lines
 * of the main sources: the API ({@code dev.distlock}) and the key rules
 * ({@code dev.distlock.keys}) on no other part and no Redis client; distlock's own
 * threads ({@code dev.distlock.thread}) on nothing of distlock's; leader election
 * ({@code dev.distlock.leader}) on the API only, so that it works on any registry; the
 * engine ({@code dev.distlock.redis}) on them and its connections only, and on no Redis
 * client; the connections ({@code dev.distlock.redis.connection}), the one place that
 * speaks to a driver, on nothing of the engine's; the engine's lease renewal
 * ({@code dev.distlock.redis.renewal}) on the API only, never on the engine that uses it;
 * the carriers of the lock context, observations, Actuator support and the fencing kit on
 * the API, never on the engine or a Redis client's connection layer; interception on the
 * API and the carriers of the lock context; the auto-configuration on everything, since
 * it wires the parts together.
 */
class PackageDependencyTests {

	private static final Path SOURCES = Path.of("src", "main", "java");

	private static final Pattern IMPORT = Pattern.compile("^import (?:static )?([\\w.]+)\\.[\\w*]+;$");

	private static final List<String> CLIENTS = List.of("io.lettuce", "redis.clients",
			"org.springframework.data.redis");

	private static final List<String> PARTS = List.of("dev.distlock.redis", "dev.distlock.aop", "dev.distlock.fencing",
			"dev.distlock.observation", "dev.distlock.actuate", "dev.distlock.autoconfigure", "dev.distlock.keys",
			"dev.distlock.context", "dev.distlock.leader", "dev.distlock.thread");

	@Test
	void apiAndKeyRulesDependOnNoOtherPartAndNoRedisClient() {
		assertThat(imports("dev.distlock"))
			.noneMatch((imported) -> startsWithAny(imported, PARTS) || startsWithAny(imported, CLIENTS));
		assertThat(imports("dev.distlock.keys"))
			.noneMatch((imported) -> startsWithAny(imported, PARTS) || startsWithAny(imported, CLIENTS));
	}

	@Test
	void threadsDependOnNoOtherPartAndNoRedisClient() {
		assertThat(imports("dev.distlock.thread"))
			.noneMatch((imported) -> startsWithAny(imported, PARTS) || startsWithAny(imported, CLIENTS));
	}

	@Test
	void engineDependsOnTheApiTheKeyRulesTheThreadsLeadershipAndItsConnectionsOnly() {
		assertThat(imports("dev.distlock.redis")).filteredOn((imported) -> startsWithAny(imported, PARTS))
			.allMatch((imported) -> imported.startsWith("dev.distlock.redis")
					|| List.of("dev.distlock.keys", "dev.distlock.thread", "dev.distlock.leader").contains(imported));
	}

	@Test
	void engineImportsNoRedisClient() {
		assertThat(imports("dev.distlock.redis")).noneMatch((imported) -> startsWithAny(imported, CLIENTS));
	}

	@Test
	void connectionsDependOnTheApiAndTheThreadsOnly() {
		assertThat(imports("dev.distlock.redis.connection")).filteredOn((imported) -> startsWithAny(imported, PARTS))
			.allMatch((imported) -> imported.equals("dev.distlock.thread"));
	}

	@Test
	void leadershipUsesTheApiAloneAndNoRedisClient() {
		assertThat(imports("dev.distlock.leader")).noneMatch((imported) -> startsWithAny(imported, PARTS)
				|| startsWithAny(imported, CLIENTS) || imported.startsWith("dev.distlock.test"));
	}

	@Test
	void leaseRenewalDependsOnTheApiOnlyAndNotOnTheEngineThatUsesIt() {
		assertThat(imports("dev.distlock.redis.renewal"))
			.noneMatch((imported) -> startsWithAny(imported, PARTS) || startsWithAny(imported, CLIENTS));
	}

	@Test
	void fencingKitDependsOnNothingOfTheEngine() {
		assertThat(imports("dev.distlock.fencing")).filteredOn((imported) -> startsWithAny(imported, PARTS))
			.allMatch((imported) -> imported.equals("dev.distlock.keys"));
	}

	@Test
	void contextCarriersObservationsAndActuatorSupportUseTheApiAloneAndNoRedisClient() {
		for (String part : List.of("dev.distlock.context", "dev.distlock.observation", "dev.distlock.actuate")) {
			assertThat(imports(part)).as(part)
				.noneMatch((imported) -> startsWithAny(imported, CLIENTS)
						|| (startsWithAny(imported, PARTS) && !imported.equals(part)));
		}
	}

	@Test
	void interceptionUsesTheApiAndTheContextCarriersAloneAndNoRedisClient() {
		assertThat(imports("dev.distlock.aop")).noneMatch((imported) -> startsWithAny(imported, CLIENTS)
				|| (startsWithAny(imported, PARTS) && !imported.equals("dev.distlock.context")));
	}

	/**
	 * Return what the main sources of a package import, by the package or class they
	 * import from (the package's own classes left out).
	 */
	private static List<String> imports(String packageName) {
		Path directory = SOURCES.resolve(packageName.replace('.', '/'));
		Set<String> imported = new TreeSet<>();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				for (String line : Files.readAllLines(file)) {
					Matcher matcher = IMPORT.matcher(line.strip());
					if (matcher.matches() && !isOwn(matcher.group(1), packageName)) {
						imported.add(matcher.group(1));
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return List.copyOf(imported);
	}

	/**
	 * Return whether an import's qualifier is the package itself or one of its classes,
	 * for the import of a nested class.
	 */
	private static boolean isOwn(String qualifier, String packageName) {
		return qualifier.equals(packageName) || (qualifier.startsWith(packageName + ".")
				&& Character.isUpperCase(qualifier.charAt(packageName.length() + 1)));
	}

	private static boolean startsWithAny(String imported, List<String> prefixes) {
		return prefixes.stream().anyMatch((prefix) -> imported.equals(prefix) || imported.startsWith(prefix + "."));
	}

}
