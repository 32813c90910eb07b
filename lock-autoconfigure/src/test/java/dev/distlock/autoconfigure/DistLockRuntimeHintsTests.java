package dev.distlock.autoconfigure;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.distlock.aop.LockExpressionRoot;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistLockRuntimeHints}: what a native image needs to load the Lua
 * scripts and to evaluate lock key expressions.
 */
class DistLockRuntimeHintsTests {

	private final RuntimeHints hints = registerHints();

	@Test
	void registersEveryLuaScriptOfTheEngine() throws IOException {
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:dev/distlock/redis/*.lua");
		assertThat(scripts).extracting(Resource::getFilename).contains("acquire.lua", "release.lua", "renew.lua");
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/" + script.getFilename()))
				.as(script.getFilename())
				.accepts(this.hints);
		}
	}

	@Test
	void registersTheScriptsOfTheFences() throws IOException {
		PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
		List<Resource> scripts = new ArrayList<>();
		scripts.addAll(List.of(resolver.getResources("classpath*:dev/distlock/fencing/*.lua")));
		scripts.addAll(List.of(resolver.getResources("classpath*:dev/distlock/fencing/schema-*.sql")));
		assertThat(scripts).extracting(Resource::getFilename).contains("advance.lua", "schema-postgresql.sql");
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/fencing/" + script.getFilename()))
				.as(script.getFilename())
				.accepts(this.hints);
		}
	}

	@Test
	void doesNotRegisterUnrelatedResources() {
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/acquire.txt")).rejects(this.hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/aop/script.lua")).rejects(this.hints);
	}

	@Test
	void registersTheGettersThatKeyExpressionsCallOnTheRootObject() {
		assertThat(RuntimeHintsPredicates.reflection().onType(LockExpressionRoot.class)).accepts(this.hints);
		for (String getter : Arrays.asList("getMethod", "getMethodName", "getTarget", "getTargetClass", "getArgs")) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LockExpressionRoot.class, getter))
				.as(getter)
				.accepts(this.hints);
		}
	}

	@Test
	void isRegisteredInAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(DistLockRuntimeHints.class);
	}

	private static RuntimeHints registerHints() {
		RuntimeHints hints = new RuntimeHints();
		new DistLockRuntimeHints().registerHints(hints, DistLockRuntimeHintsTests.class.getClassLoader());
		return hints;
	}

}
