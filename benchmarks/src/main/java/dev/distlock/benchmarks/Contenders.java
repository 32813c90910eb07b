package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Every contender, connected to one Redis, by id.
 *
 * @since 0.1.0
 */
public final class Contenders implements AutoCloseable {

	/**
	 * The raw two-round-trip floor, on Lettuce: the baseline of the uncontended
	 * scenarios.
	 */
	public static final String RAW = "raw";

	/**
	 * The raw floor with a fencing token: {@code SET NX PX} and a counter's increment in
	 * one script, then the compare-and-delete: what the floor costs once it fences every
	 * hold. Run in the uncontended and 16-thread scenarios and the {@code requests} mode.
	 */
	public static final String FENCED_FLOOR = "fenced-floor";

	/** The raw two-round-trip floor on a Jedis pool. */
	public static final String RAW_JEDIS = "raw-jedis";

	/** The naive 1 ms spinner. */
	public static final String SPINNER = "spinner";

	/** distlock {@code obtain(name).lock()}. */
	public static final String DISTLOCK_LOCK = "distlock-lock";

	/** distlock {@code acquire}/{@code release}. */
	public static final String DISTLOCK_LEASE = "distlock-lease";

	/** distlock {@code readWriteLock(name).readLock()}. */
	public static final String DISTLOCK_READ = "distlock-read";

	/** distlock {@code semaphore(name, 4).acquire()}/{@code release()}. */
	public static final String DISTLOCK_PERMIT = "distlock-permit";

	/** distlock {@code obtain(name).lock()} on a Redlock quorum of three local nodes. */
	public static final String DISTLOCK_REDLOCK = "distlock-redlock";

	/** distlock {@code @DistributedLock}. */
	public static final String DISTLOCK_ANNOTATED = "distlock-annotated";

	/** distlock {@code obtain(name).lock()} through Spring Data Redis on Jedis. */
	public static final String DISTLOCK_SPRING_DATA_JEDIS = "distlock-spring-data-jedis";

	/** Redisson {@code lock(leaseTime)}. */
	public static final String REDISSON_FIXED = "redisson-fixed";

	/** Redisson {@code lock()}. */
	public static final String REDISSON_WATCHDOG = "redisson-watchdog";

	/** Spring Integration, spin mode. */
	public static final String SI_SPIN = "si-spin";

	/** Spring Integration, pub/sub mode. */
	public static final String SI_PUBSUB = "si-pubsub";

	/** Spring Integration on Jedis, spin mode. */
	public static final String SI_SPIN_JEDIS = "si-spin-jedis";

	/** Every id, in report order. */
	public static final List<String> ALL = List.of(RAW, RAW_JEDIS, FENCED_FLOOR, SPINNER, DISTLOCK_LOCK, DISTLOCK_LEASE,
			DISTLOCK_READ, DISTLOCK_PERMIT, DISTLOCK_REDLOCK, DISTLOCK_ANNOTATED, DISTLOCK_SPRING_DATA_JEDIS,
			REDISSON_FIXED, REDISSON_WATCHDOG, SI_SPIN, SI_PUBSUB, SI_SPIN_JEDIS);

	private final Map<String, Contender> byId = new LinkedHashMap<>();

	private Contenders() {
	}

	/**
	 * Connect the given contenders.
	 * @param ids which contenders
	 * @param host Redis host
	 * @param port Redis port
	 * @param leaseTime the lease of watchdog-mode locks
	 * @return the contenders
	 */
	public static Contenders connect(List<String> ids, String host, int port, Duration leaseTime) {
		Contenders contenders = new Contenders();
		try {
			for (String id : ids) {
				contenders.byId.put(id, create(id, host, port, leaseTime));
			}
			return contenders;
		}
		catch (RuntimeException ex) {
			contenders.close();
			throw ex;
		}
	}

	/**
	 * Create one contender.
	 * @param id its id
	 * @param host Redis host
	 * @param port Redis port
	 * @param leaseTime the lease of watchdog-mode locks
	 * @return the contender
	 */
	public static Contender create(String id, String host, int port, Duration leaseTime) {
		String uri = "redis://" + host + ":" + port;
		Duration fixedLease = Duration.ofSeconds(30);
		return switch (id) {
			case RAW -> new RawFloor("raw floor (SET NX PX + EVALSHA)", new LettuceRawCommands(uri, false), false);
			case FENCED_FLOOR -> new RawFloor("fenced floor (EVALSHA of SET NX PX + INCR, EVALSHA)",
					new LettuceRawCommands(uri, true), false);
			case RAW_JEDIS -> new RawFloor("raw floor on Jedis (SET NX PX + EVALSHA)",
					new JedisRawCommands(host, port, SpringDataDriver.POOL_SIZE), false);
			case SPINNER -> new RawFloor("naive 1 ms spinner", new LettuceRawCommands(uri, false), true);
			case DISTLOCK_LOCK -> DistlockLockContender.onLettuce("distlock obtain().lock()", uri, leaseTime,
					DistlockLockContender.Mode.LOCK);
			case DISTLOCK_LEASE -> DistlockLockContender.onLettuce("distlock acquire()/release()", uri, leaseTime,
					DistlockLockContender.Mode.LEASE);
			case DISTLOCK_READ -> DistlockLockContender.onLettuce("distlock readWriteLock().readLock()", uri, leaseTime,
					DistlockLockContender.Mode.READ);
			case DISTLOCK_PERMIT -> DistlockLockContender.onLettuce("distlock semaphore(4).acquire()/release()", uri,
					leaseTime, DistlockLockContender.Mode.PERMIT);
			case DISTLOCK_REDLOCK ->
				DistlockLockContender.onQuorum("distlock obtain().lock() on a 3-node Redlock", uri, leaseTime);
			case DISTLOCK_ANNOTATED -> new AnnotatedContender(uri, leaseTime);
			case DISTLOCK_SPRING_DATA_JEDIS -> distlockOnSpringData(SpringDataDriver.JEDIS, host, port, leaseTime);
			case REDISSON_FIXED -> new RedissonContender("Redisson lock(30s)", uri, leaseTime, fixedLease);
			case REDISSON_WATCHDOG -> new RedissonContender("Redisson lock() watchdog", uri, leaseTime, null);
			case SI_SPIN -> new SpringIntegrationContender("Spring Integration spin", SpringDataDriver.LETTUCE, host,
					port, leaseTime, RedisLockType.SPIN_LOCK);
			case SI_PUBSUB -> new SpringIntegrationContender("Spring Integration pub/sub", SpringDataDriver.LETTUCE,
					host, port, leaseTime, RedisLockType.PUB_SUB_LOCK);
			case SI_SPIN_JEDIS -> new SpringIntegrationContender("Spring Integration spin on Jedis",
					SpringDataDriver.JEDIS, host, port, leaseTime, RedisLockType.SPIN_LOCK);
			default -> throw new IllegalArgumentException("Unknown contender '" + id + "'");
		};
	}

	private static Contender distlockOnSpringData(SpringDataDriver driver, String host, int port, Duration leaseTime) {
		return DistlockLockContender.onSpringData(
				"distlock obtain().lock() on Spring Data Redis (" + driver.label() + ")", driver, host, port,
				leaseTime);
	}

	/**
	 * Return a contender.
	 * @param id its id
	 * @return the contender
	 */
	public Contender get(String id) {
		Contender contender = this.byId.get(id);
		if (contender == null) {
			throw new IllegalArgumentException("Contender '" + id + "' is not connected");
		}
		return contender;
	}

	/**
	 * Return the id of a connected contender.
	 * @param contender the contender
	 * @return its id
	 */
	public String idOf(Contender contender) {
		return this.byId.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() == contender)
			.map(Map.Entry::getKey)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(contender.name() + " is not connected"));
	}

	/**
	 * Return the contenders with the given ids, in that order.
	 * @param ids the ids
	 * @return the contenders
	 */
	public List<Contender> get(List<String> ids) {
		List<Contender> selected = new ArrayList<>();
		ids.forEach((id) -> selected.add(get(id)));
		return selected;
	}

	@Override
	public void close() {
		this.byId.values().forEach(Contender::close);
	}

}
