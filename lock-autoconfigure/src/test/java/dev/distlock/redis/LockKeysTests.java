package dev.distlock.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import dev.distlock.LockName;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockKeys}: how lock names become Redis keys, and their helpers' keys.
 */
@Timeout(30)
class LockKeysTests {

	private final LockKeys keys = new LockKeys("lock:");

	@Test
	void registryNameGetsThePrefixAndNothingElse() {
		assertThat(this.keys.lockKey("report:daily")).isEqualTo("lock:report:daily");
	}

	@Test
	void helperKeysShareTheLockKeysClusterSlot() {
		for (String lockKey : List.of("lock:order:42", "lock:a%7Bb%7D", "lock:{tenant}order", "lock:é")) {
			String fenceKey = LockKeys.fenceKey(lockKey);
			assertThat(fenceKey).isNotEqualTo(lockKey);
			assertThat(SlotHash.getSlot(fenceKey)).as(fenceKey).isEqualTo(SlotHash.getSlot(lockKey));
		}
		assertThat(LockKeys.fenceKey("lock:order:42")).isEqualTo("{lock:order:42}!fence");
		assertThat(LockKeys.fenceKey("lock:{tenant}order")).isEqualTo("lock:{tenant}order!fence");
		assertThat(LockKeys.helperKey("lock:order:42", "queue")).isEqualTo("{lock:order:42}!queue");
	}

	@Test
	void noLockKeyIsAHelperKeyAndEveryHelperKeyIsInItsLockKeysClusterSlot() {
		List<String> prefixes = List.of("lock:", "", "{app}:", "dl.", "{", "lock:{");
		List<String> parts = List.of("billing", "{billing}", "{", "}", "{}", ":", "%", "%21", "#", "lock:", "fence",
				":fence", "}:fence", "{lock:", "é", ".");
		List<String> values = List.of("fence", "!fence", "}:fence", ":fence", "!", "{billing}", "%21fence", "7", "é!",
				"!".repeat(200));
		Random random = new Random(42);
		Set<String> lockKeys = new HashSet<>();
		for (int i = 0; i < 3000; i++) {
			LockKeys keys = new LockKeys(prefixes.get(i % prefixes.size()));
			String name = (i < prefixes.size()) ? "{billing}" : randomName(random, parts);
			lockKeys.add(keys.lockKey(name));
			values.forEach((value) -> lockKeys.add(keys.lockKey(keyedName(name, value))));
		}
		Set<String> helperKeys = new HashSet<>();
		for (String lockKey : lockKeys) {
			if (!admitsHelperKeys(lockKey)) {
				continue;
			}
			for (String helperKey : List.of(LockKeys.fenceKey(lockKey), LockKeys.helperKey(lockKey, "queue"))) {
				assertThat(SlotHash.getSlot(helperKey)).as(helperKey).isEqualTo(SlotHash.getSlot(lockKey));
				helperKeys.add(helperKey);
			}
		}
		assertThat(helperKeys).hasSizeGreaterThan(20_000).contains("lock:{billing}!fence");
		assertThat(lockKeys).contains("lock:{billing}:fence", "lock:{billing}:%21fence");
		helperKeys.retainAll(lockKeys);
		assertThat(helperKeys).as("helper keys that are lock keys").isEmpty();
	}

	@Test
	void lockKeyWithAClosingBraceOutsideAHashTagIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockKeys.fenceKey("lock:a}b"))
			.withMessageContaining("contains '}' outside a hash tag");
	}

	@Test
	void keyPrefixesWithAnExclamationMarkAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisLockSettings.of("lock!", Duration.ofSeconds(30)))
			.withMessage("Key prefix 'lock!' contains '!', which is reserved for distlock's helper keys");
	}

	private static String keyedName(String name, String value) {
		return LockName.keyed(name, value).value();
	}

	private static String randomName(Random random, List<String> parts) {
		StringBuilder name = new StringBuilder();
		for (int i = random.nextInt(4); i >= 0; i--) {
			name.append(parts.get(random.nextInt(parts.size())));
		}
		return name.toString();
	}

	/**
	 * Whether a lock key has helper keys: not when it has a '}' outside a hash tag, which
	 * the registry and the annotation reject.
	 */
	private static boolean admitsHelperKeys(String lockKey) {
		try {
			LockKeys.fenceKey(lockKey);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

}
