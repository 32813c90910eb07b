package dev.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The random token that proves ownership of a lock in Redis is unguessable (128 bits from
 * {@code SecureRandom}, 32 hex digits, distinct for every hold) and never shows up in the
 * log or in an exception message: knowing it would let anyone release or renew someone
 * else's lock.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class LockTokenSecrecyTests {

	private static final int HOLDS = 1000;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	private Level rootLevel;

	private Level distlockLevel;

	@BeforeEach
	void setUp() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
		Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
		Logger distlock = (Logger) LoggerFactory.getLogger("dev.distlock");
		this.rootLevel = root.getLevel();
		this.distlockLevel = distlock.getLevel();
		root.setLevel(Level.INFO);
		distlock.setLevel(Level.TRACE);
	}

	@AfterEach
	void close() throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(this.rootLevel);
		((Logger) LoggerFactory.getLogger("dev.distlock")).setLevel(this.distlockLevel);
		this.closer.close();
	}

	@Test
	void everyHoldHasItsOwn128BitRandomToken() {
		TestLockRegistry registry = registry();
		Set<String> tokens = new HashSet<>();
		long ones = 0;
		for (int i = 0; i < HOLDS; i++) {
			try (LockLease lease = registry.registry().acquire("token", Duration.ZERO)) {
				String token = this.commands.get("lock:token");
				assertThat(token).matches("[0-9a-f]{32}");
				tokens.add(token);
				for (byte b : HexFormat.of().parseHex(token)) {
					ones += Integer.bitCount(b & 0xFF);
				}
			}
		}
		assertThat(tokens).hasSize(HOLDS);
		double share = ones / (HOLDS * 128.0);
		System.out.printf("[tokens] %d distinct tokens of 128 bits, %.4f of the bits set%n", tokens.size(), share);
		// 128,000 fair coin flips: 6 standard deviations is 0.0084
		assertThat(share).isBetween(0.49, 0.51);
	}

	@Test
	void tokensNeverAppearInTheLogOrInExceptions(CapturedOutput output) throws Exception {
		TestLockRegistry registry = registry();
		TestLockRegistry rival = registry();
		List<String> tokens = new ArrayList<>();
		List<String> messages = new ArrayList<>();
		// acquire and release
		try (LockLease lease = registry.registry().acquire("secret", Duration.ZERO)) {
			tokens.add(this.commands.get("lock:secret"));
			// a rival that fails to acquire, then one that waits and is handed the lock
			// in this JVM
			assertThat(rival.registry().tryAcquire("secret", Duration.ofMillis(50))).isEmpty();
		}
		FencedLock lock = registry.registry().obtain("handed");
		assertThat(lock.tryLock()).isTrue();
		tokens.add(this.commands.get("lock:handed"));
		CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> {
			FencedLock sameLock = registry.registry().obtain("handed");
			sameLock.tryLock(Duration.ofSeconds(5));
			String token = this.commands.get("lock:handed");
			sameLock.unlock();
			return token;
		});
		Thread.sleep(100);
		lock.unlock();
		tokens.add(waiter.get(10, TimeUnit.SECONDS));
		// loss: another owner's token replaces ours, the renewal finds it, the release
		// throws
		LockLease lost = registry.registry().acquire("stolen", Duration.ZERO);
		tokens.add(this.commands.get("lock:stolen"));
		this.commands.set("lock:stolen", "someone-else");
		registry.registry().renewLeases();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry.lostEvents()).hasSize(1));
		messages.add(registry.lostEvents().get(0).toString());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lost::release)
			.satisfies((ex) -> messages.add(ex.toString()));
		assertThat(tokens).doesNotContainNull().hasSize(4).doesNotHaveDuplicates();
		assertThat(output.getAll()).as("the log shows the loss")
			.contains("Lock 'stolen' (fencing token " + lost.fencingToken() + ") was lost");
		for (String token : tokens) {
			assertThat(output.getAll()).as("log output").doesNotContain(token);
			assertThat(messages).as("event and exception").noneMatch((message) -> message.contains(token));
		}
	}

	private TestLockRegistry registry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30)));
	}

}
