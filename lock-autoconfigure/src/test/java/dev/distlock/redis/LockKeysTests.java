package dev.distlock.redis;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import com.sun.management.ThreadMXBean;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockKeys}: how names and key values become Redis keys.
 */
@Timeout(30)
class LockKeysTests {

	private final LockKeys keys = new LockKeys("lock:");

	@Test
	void registryNameGetsThePrefixAndNothingElse() {
		assertThat(this.keys.lockKey("report:daily")).isEqualTo("lock:report:daily");
	}

	@Test
	void plainKeyValuesAppearUnchanged() {
		assertThat(LockKeys.keyedName("order", "Order-42_a.b")).isEqualTo("order:Order-42_a.b");
	}

	@Test
	void separatorsBracesPercentAndUnicodeAreEscaped() {
		assertThat(LockKeys.encode("a:b")).isEqualTo("a%3Ab");
		assertThat(LockKeys.encode("{x}")).isEqualTo("%7Bx%7D");
		assertThat(LockKeys.encode("100%")).isEqualTo("100%25");
		assertThat(LockKeys.encode("é")).isEqualTo("%C3%A9");
		assertThat(LockKeys.encode("a b")).isEqualTo("a%20b");
		assertThat(LockKeys.encode("!fence")).isEqualTo("%21fence");
	}

	@Test
	void unpairedSurrogatesAreEncodedAsTheirCodePointsAndPairsAsUtf8() {
		assertThat(LockKeys.encode("\uD800")).isEqualTo("%ED%A0%80");
		assertThat(LockKeys.encode("\uDFFF")).isEqualTo("%ED%BF%BF");
		assertThat(LockKeys.encode("?")).isEqualTo("%3F");
		assertThat(LockKeys.encode("\uD83D\uDE00")).isEqualTo("%F0%9F%98%80");
		assertThat(LockKeys.encode("\uDE00\uD83D")).isEqualTo("%ED%B8%80%ED%A0%BD");
		String head = "a".repeat(200);
		assertThat(LockKeys.encode(head + "\uD800")).isNotEqualTo(LockKeys.encode(head + "?"));
	}

	@Test
	void distinctNameAndValuePairsNeverShareAKey() {
		List<String[]> pairs = List.of(new String[] { "a", "b:c" }, new String[] { "a:b", "c" },
				new String[] { "a", "b%3Ac" }, new String[] { "a", "b" }, new String[] { "a:b", "" },
				new String[] { "a", "{b}" }, new String[] { "a", "%7Bb%7D" }, new String[] { "a", "b".repeat(500) },
				new String[] { "a", "b".repeat(501) });
		Set<String> lockKeys = new HashSet<>();
		for (String[] pair : pairs) {
			lockKeys.add(this.keys.lockKey(LockKeys.keyedName(pair[0], pair[1])));
		}
		assertThat(lockKeys).hasSameSizeAs(pairs);
	}

	@Test
	void veryLongValuesAreBoundedAndStayDistinct() {
		String megabyte = "x".repeat(1024 * 1024);
		String encoded = LockKeys.encode(megabyte);
		assertThat(encoded).hasSizeLessThanOrEqualTo(64 + 1 + 64).contains("#");
		assertThat(LockKeys.encode(megabyte + "y")).isNotEqualTo(encoded);
	}

	@Test
	void encodingsAreShortenedOnlyWhenLongerThan128Characters() {
		assertThat(LockKeys.encode("x".repeat(128))).isEqualTo("x".repeat(128));
		assertThat(LockKeys.encode("x".repeat(129))).isEqualTo("x".repeat(64) + "#" + sha256("x".repeat(129)));
		assertThat(LockKeys.encode("é".repeat(21))).isEqualTo("%C3%A9".repeat(21));
		assertThat(LockKeys.encode("é".repeat(22)))
			.isEqualTo("%C3%A9".repeat(10) + "%C3%" + "#" + sha256("é".repeat(22)));
	}

	@Test
	void longerValuesKeepTheFirst64CharactersOfTheirEncodingAndTheSha256OfTheirUtf8() {
		Map<String, String> heads = Map.of("x", "x".repeat(64), "a:b", "a%3Ab".repeat(12) + "a%3A", "é",
				"%C3%A9".repeat(10) + "%C3%", "\uD83D\uDE00", "%F0%9F%98%80".repeat(5) + "%F0%");
		heads.forEach((unit, head) -> {
			for (int repeats : new int[] { 129, 255, 256, 257, 512, 1024, 1025, 1_000_000 }) {
				String value = unit.repeat(repeats);
				assertThat(LockKeys.encode(value)).as("'%s' x %d", unit, repeats).isEqualTo(head + "#" + sha256(value));
			}
		});
	}

	@Test
	void encodingATenMillionCharacterValueAllocatesLittle() {
		ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
		String value = "zürich 東京:".repeat(1_000_000);
		LockKeys.encode(value.substring(0, 10_000));
		long before = threads.getCurrentThreadAllocatedBytes();
		String encoded = LockKeys.encode(value);
		long allocated = threads.getCurrentThreadAllocatedBytes() - before;
		assertThat(allocated).as("bytes allocated while encoding").isLessThan(2 * 1024 * 1024);
		assertThat(encoded)
			.isEqualTo("z%C3%BCrich%20%E6%9D%B1%E4%BA%AC%3A".repeat(2).substring(0, 64) + "#" + sha256(value));
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
			values.forEach((value) -> lockKeys.add(keys.lockKey(LockKeys.keyedName(name, value))));
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
	void namesAndKeyPrefixesWithAnExclamationMarkAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockKeys.checkName("orders!eu"))
			.withMessage("Lock name 'orders!eu' contains '!', which is reserved for distlock's helper keys");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisLockSettings.of("lock!", Duration.ofSeconds(30)))
			.withMessage("Key prefix 'lock!' contains '!', which is reserved for distlock's helper keys");
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

	private static String sha256(String wellFormed) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(wellFormed.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
