package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.HoldKind;
import dev.distlock.LockName;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import dev.distlock.testsupport.LettuceClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Renewing holds of every {@link HoldKind} in one round: an exclusive hold extends its
 * lock key, a shared hold its entry in the set of holders (and the set with it), and the
 * replies come back in the order of the batches whatever their kinds. A renewal never
 * shortens what an extension to a longer lease left.
 */
@Timeout(30)
class SharedHoldRenewalTests {

	private static final LeaseTerms TERMS = new LeaseTerms(30_000, 0);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> redisCommands;

	private RedisLockCommands commands;

	@BeforeEach
	void connect() {
		this.redisCommands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5)))
			.sync();
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		this.commands = this.closer.add(TestLockRegistry.commands(client));
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void renewsEachKindWithItsScriptAndAnswersInTheOrderOfTheBatches() {
		LockId report = id("report");
		LockId pool = id("pool");
		this.redisCommands.set(report.key, "exclusive-token", SetArgs.Builder.px(1_000));
		String permits = LockKeys.heldKey(pool, HoldKind.PERMIT);
		long soon = serverMillis() + 1_000;
		this.redisCommands.zadd(permits, soon, "permit-token");
		this.redisCommands.zadd(permits, serverMillis() - 1, "expired-token");
		this.redisCommands.pexpire(permits, 1_000);
		this.redisCommands.set(pool.fenceKey, "1", SetArgs.Builder.px(1_000));

		List<List<Long>> replies = this.commands
			.renew(List.of(renewal(HoldKind.PERMIT, pool, "permit-token"),
					renewal(HoldKind.EXCLUSIVE, report, "exclusive-token"),
					renewal(HoldKind.PERMIT, pool, "expired-token"), renewal(HoldKind.EXCLUSIVE, report, "other")))
			.stream()
			.map((reply) -> this.commands.await(reply, "renew"))
			.toList();

		assertThat(replies).containsExactly(List.of(1L), List.of(1L), List.of(0L), List.of(0L));
		assertThat(this.redisCommands.pttl(report.key)).isGreaterThan(20_000);
		assertThat(this.redisCommands.zscore(permits, "permit-token")).isGreaterThan(soon + 20_000.0);
		assertThat(this.redisCommands.zscore(permits, "expired-token")).isLessThan(soon);
		assertThat(this.redisCommands.pttl(permits)).isGreaterThan(20_000);
		assertThat(this.redisCommands.pttl(pool.fenceKey)).isGreaterThan(20_000);
	}

	@Test
	void renewalWithAShorterLeaseThanAnExtensionLeftNeverShortensAHoldOfAnyKind() {
		LockId report = id("report");
		LockId pool = id("pool");
		this.redisCommands.set(report.key, "exclusive-token", SetArgs.Builder.px(60_000));
		this.redisCommands.set(report.fenceKey, "1", SetArgs.Builder.px(60_000));
		String permits = LockKeys.heldKey(pool, HoldKind.PERMIT);
		long extended = serverMillis() + 60_000;
		this.redisCommands.zadd(permits, extended, "permit-token");
		this.redisCommands.pexpire(permits, 60_000);
		this.redisCommands.set(pool.fenceKey, "1", SetArgs.Builder.px(60_000));
		LeaseTerms shorter = new LeaseTerms(1_000, 0);

		List<Long> renewed = this.commands
			.renew(List.of(
					new HoldRenewals.Renewal(HoldKind.EXCLUSIVE, List.of(report), List.of("exclusive-token"), shorter),
					new HoldRenewals.Renewal(HoldKind.PERMIT, List.of(pool), List.of("permit-token"), shorter)))
			.stream()
			.map((reply) -> this.commands.await(reply, "renew").get(0))
			.toList();

		assertThat(renewed).containsExactly(1L, 1L);
		assertThat(this.redisCommands.pttl(report.key)).isGreaterThan(50_000);
		assertThat(this.redisCommands.pttl(report.fenceKey)).isGreaterThan(50_000);
		assertThat(this.redisCommands.zscore(permits, "permit-token")).isEqualTo(extended);
		assertThat(this.redisCommands.pttl(permits)).isGreaterThan(50_000);
		assertThat(this.redisCommands.pttl(pool.fenceKey)).isGreaterThan(50_000);
	}

	@Test
	void aSharedHoldWhoseLeaseRanOutIsNotRenewedDuringItsLockDelay() {
		LockId pool = id("pool");
		String readers = LockKeys.heldKey(pool, HoldKind.READ_SHARE);
		this.redisCommands.zadd(readers, serverMillis() + 500, "reader");
		this.redisCommands.pexpire(readers, 500);

		List<Long> reply = this.commands.await(this.commands.renew(List.of(new HoldRenewals.Renewal(HoldKind.READ_SHARE,
				List.of(pool), List.of("reader"), new LeaseTerms(30_000, 1_000))))
			.get(0), "renew");

		assertThat(reply).containsExactly(0L);
		assertThat(this.redisCommands.pttl(readers)).isLessThanOrEqualTo(500);
	}

	private static LockId id(String name) {
		return new LockId(LockName.of(name), "lock:" + name);
	}

	private static HoldRenewals.Renewal renewal(HoldKind kind, LockId id, String token) {
		return new HoldRenewals.Renewal(kind, List.of(id), List.of(token), TERMS);
	}

	private long serverMillis() {
		List<String> time = this.redisCommands.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

}
