package dev.distlock.fencing;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.distlock.fencing.FenceAssertions.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The behaviour of {@link RedisFence} on one Redis topology, written once and run on each
 * by a subclass against real {@code redis-server}s: the tokens it records and refuses,
 * where it keeps them, and its guarded write, whose keys share a Cluster slot.
 */
@Timeout(30)
abstract class RedisFenceContract {

	private final Closer closer = new Closer();

	private StringRedisTemplate template;

	private RedisFence fence;

	/**
	 * Return a new connection factory of the Redis under test, not yet started.
	 * @return the connection factory
	 */
	protected abstract LettuceConnectionFactory connectionFactory();

	/**
	 * Return a new lock registry on the Redis under test.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	protected abstract TestLockRegistry locks(Duration leaseTime);

	@BeforeEach
	void connect() {
		LettuceConnectionFactory connectionFactory = connectionFactory();
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		this.closer.add(connectionFactory::destroy);
		this.template = new StringRedisTemplate(connectionFactory);
		this.template.execute((RedisCallback<?>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
		this.fence = new RedisFence(this.template, "lock:");
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void advanceRecordsTheTokenUnderTheResourcesHighestTokenKeyWhichNeverExpires() {
		this.fence.advance("report", 5);
		assertThat(this.template.keys("*")).containsExactly("lock:report!highest");
		assertThat(this.template.opsForValue().get("lock:report!highest")).isEqualTo("5");
		assertThat(this.template.getExpire("lock:report!highest")).as("TTL, -1 for none").isEqualTo(-1);
	}

	@Test
	void higherTokenIsRecorded() {
		this.fence.advance("report", 5);
		this.fence.advance("report", 9);
		assertThat(this.template.opsForValue().get("lock:report!highest")).isEqualTo("9");
	}

	@Test
	void equalTokenIsAcceptedSoThatOneHolderMayWriteTwice() {
		this.fence.advance("{report}", 5);
		this.fence.advance("{report}", 5);
		this.fence.write("{report}", 5, "{report}:rows", "twice");
		assertThat(this.template.opsForValue().get("lock:{report}!highest")).isEqualTo("5");
		assertThat(this.template.opsForValue().get("{report}:rows")).isEqualTo("twice");
	}

	@Test
	void lowerTokenIsRefused() {
		this.fence.advance("report", 9);
		assertRefused(() -> this.fence.advance("report", 5), "report", 5, 9);
		assertThat(this.template.opsForValue().get("lock:report!highest")).isEqualTo("9");
	}

	@Test
	void writeSetsTheKeyAndRecordsTheToken() {
		this.fence.write("{report}", 5, "{report}:rows", "first");
		this.fence.write("{report}", 7, "{report}:rows", "second");
		assertThat(this.template.opsForValue().get("{report}:rows")).isEqualTo("second");
		assertThat(this.template.opsForValue().get("lock:{report}!highest")).isEqualTo("7");
	}

	@Test
	void staleWriteLeavesTheValueAndTheHighestTokenAlone() {
		this.fence.write("{report}", 9, "{report}:rows", "new");
		assertRefused(() -> this.fence.write("{report}", 5, "{report}:rows", "late"), "{report}", 5, 9);
		assertThat(this.template.opsForValue().get("{report}:rows")).isEqualTo("new");
		assertThat(this.template.opsForValue().get("lock:{report}!highest")).isEqualTo("9");
	}

	@Test
	void writeIsRefusedAfterAnAdvanceWithAHigherTokenWhenTheKeySharesTheResourcesSlot() {
		this.fence.advance("{report}:daily", 9);
		assertRefused(() -> this.fence.write("{report}:daily", 5, "{report}:daily:rows", "late"), "{report}:daily", 5,
				9);
		assertThat(this.template.hasKey("{report}:daily:rows")).isFalse();
	}

	@Test
	void writeOfAKeyInAnotherSlotThanTheResourceKeepsTheHighestTokenBesideTheKey() {
		String day = "report:2026-11-26";
		this.fence.write(day, 5, day + ":json", "first");
		this.fence.write(day, 7, day + ":json", "second");
		assertRefused(() -> this.fence.write(day, 6, day + ":json", "late"), day, 6, 7);
		assertThat(this.template.keys("*")).containsExactlyInAnyOrder(day + ":json",
				"{" + day + ":json}lock:" + day + "!highest");
		assertThat(this.template.opsForValue().get(day + ":json")).isEqualTo("second");
		assertThat(this.template.opsForValue().get("{" + day + ":json}lock:" + day + "!highest")).isEqualTo("7");
	}

	@Test
	void writesOfAResourceToKeysOfOneHashTagAreFencedTogether() {
		this.fence.write("report", 9, "{report}:rows", "new");
		assertRefused(() -> this.fence.write("report", 5, "{report}:summary", "late"), "report", 5, 9);
		assertThat(this.template.hasKey("{report}:summary")).isFalse();
		assertThat(this.template.opsForValue().get("{report}lock:report!highest")).isEqualTo("9");
	}

	@Test
	void keyWithABraceOutsideAHashTagInAnotherSlotIsRefusedSayingWhy() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.fence.write("report", 5, "rows}", "value"))
			.withMessage("Key 'rows}' contains '}' outside a hash tag, so the highest token of resource 'report'"
					+ " cannot be kept in its Cluster slot; remove it, or give the key a hash tag");
		assertThat(this.template.keys("*")).isEmpty();
	}

	@Test
	void resourcesAreFencedApart() {
		this.fence.advance("{report}", 9);
		this.fence.write("{invoice}", 5, "{invoice}:rows", "written");
		assertThat(this.template.opsForValue().get("lock:{invoice}!highest")).isEqualTo("5");
		assertThat(this.template.opsForValue().get("{invoice}:rows")).isEqualTo("written");
	}

	@Test
	void keepsTheHighestTokenApartFromTheKeysOfTheLockOfTheSameName() {
		try (TestLockRegistry locks = locks(Duration.ofSeconds(30))) {
			LockLease lease = locks.registry().acquire("report", Duration.ZERO);
			this.fence.advance("report", lease.fencingToken());
			assertThat(this.template.keys("*")).containsExactlyInAnyOrder("lock:report", "{lock:report}!fence",
					"lock:report!highest");
			assertThat(this.template.opsForValue().get("{lock:report}!fence"))
				.isEqualTo(Long.toString(lease.fencingToken()));
			lease.release();
			assertThat(locks.registry().acquire("report", Duration.ZERO).fencingToken())
				.isGreaterThan(lease.fencingToken());
		}
	}

	@Test
	void advanceAndWriteWithoutATokenUseTheLeaseOfTheCurrentCall() {
		try (TestLockRegistry locks = locks(Duration.ofSeconds(30));
				LockLease lease = locks.registry().acquire("report", Duration.ZERO);
				LockContext.Binding binding = LockContext.bind(List.of(lease))) {
			this.fence.advance("report");
			assertThat(this.template.opsForValue().get("lock:report!highest"))
				.isEqualTo(Long.toString(lease.fencingToken()));
			this.fence.write("{invoice}", "{invoice}:rows", "written");
			assertThat(this.template.opsForValue().get("lock:{invoice}!highest"))
				.isEqualTo(Long.toString(lease.fencingToken()));
		}
	}

	@Test
	void advanceAndWriteWithoutATokenOutsideALockedCallThrow() {
		assertThatIllegalStateException().isThrownBy(() -> this.fence.advance("report"))
			.withMessage("advance(\"report\") takes the fencing token of the @DistributedLock method that runs on this"
					+ " thread, and none does: call it inside one, or pass the fencing token of your lease");
		assertThatIllegalStateException().isThrownBy(() -> this.fence.write("report", "report:rows", "value"))
			.withMessageStartingWith("write(\"report\", \"report:rows\", value) takes the fencing token");
		assertThat(this.template.keys("*")).isEmpty();
	}

	@Test
	void refusesAKeyPrefixWithTheCharacterReservedForHelperKeys() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisFence(this.template, "lock!"))
			.withMessage("Key prefix 'lock!' contains '!', which is reserved for distlock's helper keys");
	}

}
