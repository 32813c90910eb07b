package dev.distlock;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockName} and {@link KeyValueEncoding}: how key values become lock
 * names, and the base name and key value of a lock, as the caller gave them.
 */
@Timeout(30)
class LockNameTests {

	@Test
	void nameGivenWholeIsItsOwnBaseWithoutKeyValueColonsIncluded() {
		for (String text : List.of("tenant:acme:invoices", "jobs:cleanup", "OrderService.pay", ":odd")) {
			LockName name = LockName.of(text);
			assertThat(name.base()).isEqualTo(text);
			assertThat(name.keyValue()).isNull();
		}
	}

	@Test
	void keyedNameKeepsItsBaseAndItsEncodedKeyValueWhateverTheValue() {
		for (String value : List.of("42", "a:b", "x".repeat(1000), "{tag}", "\uD800")) {
			LockName name = LockName.keyed("billing:invoice", value);
			assertThat(name.base()).isEqualTo("billing:invoice");
			assertThat(name.keyValue()).isEqualTo(KeyValueEncoding.encode(value));
			assertThat(name.value()).isEqualTo("billing:invoice:" + KeyValueEncoding.encode(value));
		}
	}

	@Test
	void keyedNameAndNameGivenWholeOfTheSameTextAreTheSameLock() {
		LockName keyed = LockName.keyed("invoices", "acme");
		LockName whole = LockName.of("invoices:acme");
		assertThat(keyed).isEqualTo(whole).hasSameHashCodeAs(whole);
		assertThat(whole.base()).isEqualTo("invoices:acme");
		assertThat(keyed.base()).isEqualTo("invoices");
	}

	@Test
	void emptyNamesAndNamesWithAnExclamationMarkAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockName.of("orders!eu"))
			.withMessage("Lock name 'orders!eu' contains '!', which is reserved for distlock's helper keys");
		assertThatIllegalArgumentException().isThrownBy(() -> LockName.keyed("orders!eu", "7"))
			.withMessage("Lock name 'orders!eu' contains '!', which is reserved for distlock's helper keys");
		assertThatIllegalArgumentException().isThrownBy(() -> LockName.of(""));
	}

	@Test
	void plainKeyValuesAppearUnchanged() {
		assertThat(LockName.keyed("order", "Order-42_a.b").value()).isEqualTo("order:Order-42_a.b");
	}

	@Test
	void separatorsBracesPercentAndUnicodeAreEscaped() {
		assertThat(KeyValueEncoding.encode("a:b")).isEqualTo("a%3Ab");
		assertThat(KeyValueEncoding.encode("{x}")).isEqualTo("%7Bx%7D");
		assertThat(KeyValueEncoding.encode("100%")).isEqualTo("100%25");
		assertThat(KeyValueEncoding.encode("é")).isEqualTo("%C3%A9");
		assertThat(KeyValueEncoding.encode("a b")).isEqualTo("a%20b");
		assertThat(KeyValueEncoding.encode("!fence")).isEqualTo("%21fence");
	}

	@Test
	void unpairedSurrogatesAreEncodedAsTheirCodePointsAndPairsAsUtf8() {
		assertThat(KeyValueEncoding.encode("\uD800")).isEqualTo("%ED%A0%80");
		assertThat(KeyValueEncoding.encode("\uDFFF")).isEqualTo("%ED%BF%BF");
		assertThat(KeyValueEncoding.encode("?")).isEqualTo("%3F");
		assertThat(KeyValueEncoding.encode("\uD83D\uDE00")).isEqualTo("%F0%9F%98%80");
		assertThat(KeyValueEncoding.encode("\uDE00\uD83D")).isEqualTo("%ED%B8%80%ED%A0%BD");
		String head = "a".repeat(200);
		assertThat(KeyValueEncoding.encode(head + "\uD800")).isNotEqualTo(KeyValueEncoding.encode(head + "?"));
	}

	@Test
	void distinctNameAndValuePairsNeverShareAName() {
		List<String[]> pairs = List.of(new String[] { "a", "b:c" }, new String[] { "a:b", "c" },
				new String[] { "a", "b%3Ac" }, new String[] { "a", "b" }, new String[] { "a:b", "" },
				new String[] { "a", "{b}" }, new String[] { "a", "%7Bb%7D" }, new String[] { "a", "b".repeat(500) },
				new String[] { "a", "b".repeat(501) });
		Set<String> lockKeys = new HashSet<>();
		for (String[] pair : pairs) {
			lockKeys.add(LockName.keyed(pair[0], pair[1]).value());
		}
		assertThat(lockKeys).hasSameSizeAs(pairs);
	}

	@Test
	void veryLongValuesAreBoundedAndStayDistinct() {
		String megabyte = "x".repeat(1024 * 1024);
		String encoded = KeyValueEncoding.encode(megabyte);
		assertThat(encoded).hasSizeLessThanOrEqualTo(64 + 1 + 64).contains("#");
		assertThat(KeyValueEncoding.encode(megabyte + "y")).isNotEqualTo(encoded);
	}

	@Test
	void encodingsAreShortenedOnlyWhenLongerThan128Characters() {
		assertThat(KeyValueEncoding.encode("x".repeat(128))).isEqualTo("x".repeat(128));
		assertThat(KeyValueEncoding.encode("x".repeat(129))).isEqualTo("x".repeat(64) + "#" + sha256("x".repeat(129)));
		assertThat(KeyValueEncoding.encode("é".repeat(21))).isEqualTo("%C3%A9".repeat(21));
		assertThat(KeyValueEncoding.encode("é".repeat(22)))
			.isEqualTo("%C3%A9".repeat(10) + "%C3%" + "#" + sha256("é".repeat(22)));
	}

	@Test
	void longerValuesKeepTheFirst64CharactersOfTheirEncodingAndTheSha256OfTheirUtf8() {
		Map<String, String> heads = Map.of("x", "x".repeat(64), "a:b", "a%3Ab".repeat(12) + "a%3A", "é",
				"%C3%A9".repeat(10) + "%C3%", "\uD83D\uDE00", "%F0%9F%98%80".repeat(5) + "%F0%");
		heads.forEach((unit, head) -> {
			for (int repeats : new int[] { 129, 255, 256, 257, 512, 1024, 1025, 1_000_000 }) {
				String value = unit.repeat(repeats);
				assertThat(KeyValueEncoding.encode(value)).as("'%s' x %d", unit, repeats)
					.isEqualTo(head + "#" + sha256(value));
			}
		});
	}

	@Test
	void encodingATenMillionCharacterValueAllocatesLittle() {
		ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
		String value = "zürich 東京:".repeat(1_000_000);
		KeyValueEncoding.encode(value.substring(0, 10_000));
		long before = threads.getCurrentThreadAllocatedBytes();
		String encoded = KeyValueEncoding.encode(value);
		long allocated = threads.getCurrentThreadAllocatedBytes() - before;
		assertThat(allocated).as("bytes allocated while encoding").isLessThan(2 * 1024 * 1024);
		assertThat(encoded)
			.isEqualTo("z%C3%BCrich%20%E6%9D%B1%E4%BA%AC%3A".repeat(2).substring(0, 64) + "#" + sha256(value));
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
