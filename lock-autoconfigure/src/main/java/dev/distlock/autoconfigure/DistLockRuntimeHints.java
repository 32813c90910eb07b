package dev.distlock.autoconfigure;

import dev.distlock.aop.LockExpressionRoot;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Runtime hints for a native image: the Lua scripts the engine and the Redis fence load
 * as resources, the JDBC fence's schema scripts, and the root object that lock key
 * expressions read reflectively.
 *
 * @since 0.1.0
 */
class DistLockRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("dev/distlock/redis/*.lua");
		hints.resources().registerPattern("dev/distlock/fencing/*.lua");
		hints.resources().registerPattern("dev/distlock/fencing/schema-*.sql");
		hints.reflection().registerType(LockExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
