package dev.distlock.check;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.distlock.HeldLock;
import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockLostEvent;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.fencing.RedisFence;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestDriver;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.LiveThreads;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * One worker JVM of the checker:
 * {@code <lock-redis-uri> <store-redis-uri> <history-file> <incarnation> <seed> <threads> <driver>}.
 * Builds a Spring context whose {@code @DistributedLock} methods ({@link CheckedService})
 * lock through a {@link RecordingLockRegistry} on a registry that talks to Redis through
 * the given {@link TestDriver} (with a lock delay when the seed is odd), or, when the
 * lock Redis URI is several separated by commas, on a Redlock quorum of those nodes (with
 * a lock delay, and only the calls Redlock offers), records the driver as {@code DRIVER},
 * prints {@code READY} and runs {@link WorkerOps} threads and a {@link LeaderOps} thread
 * at once, recording the terms of its leadership as {@code GRANTED} and {@code REVOKED},
 * whose end a listener calls back into ({@link TermLossCallbacks}). Commands on standard
 * input: {@code interrupt} (interrupts one worker thread), {@code interrupt-waiter}
 * (interrupts one worker thread that is acquiring a lock, if any),
 * {@code take <name> [<millis>]} (takes the named lock, waiting that long for it, or a
 * permit of the named semaphore, on a thread of its own and through a registry of its
 * own, as another process would, {@link WorkerOps#take}), {@code probe <name> <millis>}
 * (tries the read lock of the named read/write lock or a permit of the named semaphore
 * without waiting every 30 to 50 ms for that long, releasing at once whatever it gets, on
 * a thread of its own and through the registry of its takes, {@link WorkerOps#probe}),
 * {@code park-release <id> <name>} (takes the named lock on a thread of its own, has
 * another thread wait for it and parks its release, {@link WorkerOps#parkedRelease}),
 * {@code release-parked <id>} (lets that release go, {@link ParkedReleases}),
 * {@code lease-out-release <id> <name>} (takes every permit of the named semaphore on a
 * thread of its own and releases them once their lease ran out,
 * {@link WorkerOps#leaseOutRelease}), {@code give-back-probe <id>} (has an attempt reach
 * Redis after its give-back, on a thread of its own, {@link GiveBackProbe}),
 * {@code watch-leader <id>} (looks at its leadership without a pause until just after the
 * freeze that follows, on a thread of its own, {@link ThawWatch}), {@code keep <millis>}
 * (keeps every hold its threads keep now that much longer, {@link KeptHolds#prolong}),
 * {@code lease-left <n> <names>} (prints {@code LEASE-LEFT <n> <millis>}: how much lease
 * the kept hold of those names with the least left has among those still valid, -1 when
 * none is kept, {@link KeptHolds#leaseLeft}), {@code status <n>} (prints
 * {@code STATUS <n> waiting=<names> holding=<names> queued=<names> kept=<names> shares=<names> ending=<names>}:
 * the locks this JVM waits for in Redis, being acquired by one of its threads while none
 * holds them or campaigned for by its leadership as a standby, those it holds (its takes
 * too), and those its own registry holds while another of its threads waits for them, and
 * those it keeps ({@link KeptHolds}) still valid with at least {@link #KEPT_AHEAD} left,
 * those of them it keeps as read shares or permits, and those with less than
 * {@link #ENDING} left), {@code stop} (stops the threads within a bound, records every
 * thread that did not finish as {@code HUNG}, stops the leadership, records every hold
 * the registry still has as {@code HELD}, stops its {@link ValiditySampler}, prints
 * {@code STOPPED}), {@code close} (closes the context, the registry, its client or
 * connection factory and the store's clients, records the threads that outlived them as
 * {@code THREADS}, prints {@code CLOSED}) and {@code exit}.
 */
final class CheckWorkerMain {

	/** The lease of the workers' holds that the watchdog renews. */
	static final Duration LEASE = Duration.ofMillis(1500);

	/** How long the workers' engines wait for each answer of Redis. */
	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/** The lock delay of the workers whose seed is odd; the others have none. */
	static final Duration LOCK_DELAY = Duration.ofMillis(500);

	/** The prefix of the workers' lock keys. */
	static final String KEY_PREFIX = "lock:";

	/**
	 * How long a hold must still be kept to count as kept, or as a kept share, in a
	 * status: long enough for the validity sampler to look at it many times after a
	 * freeze.
	 */
	static final Duration KEPT_AHEAD = Duration.ofMillis(400);

	/**
	 * How little time a kept hold must have left to count as ending in a status: well
	 * under the watchdog's period, so that it is released before its next renewal.
	 */
	static final Duration ENDING = Duration.ofMillis(150);

	private static final Duration STOP_BOUND = WorkerOps.BOUND.plusSeconds(15);

	private static final Duration THREADS_SETTLE = Duration.ofSeconds(10);

	private CheckWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		try {
			((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.ERROR);
			run(args[0], args[1], Path.of(args[2]), args[3], Long.parseLong(args[4]), Integer.parseInt(args[5]),
					TestDriver.valueOf(args[6]));
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private static void run(String lockUri, String storeUri, Path historyFile, String incarnation, long seed,
			int threads, TestDriver driver) throws Exception {
		Set<String> baseline = LiveThreads.now();
		History history = History.appendTo(historyFile);
		history.record("DRIVER", "driver", driver);
		List<String> nodes = List.of(lockUri.split(","));
		boolean quorum = nodes.size() > 1;
		RedisLockSettings settings = RedisLockSettings.of(KEY_PREFIX, LEASE)
			.withCommandTimeout(COMMAND_TIMEOUT)
			.withLockDelay(lockDelay(seed, quorum));
		AtomicBoolean stopping = new AtomicBoolean();
		TermLossCallbacks callbacks = new TermLossCallbacks(history, ~seed, stopping::get);
		Consumer<LockEvent> events = recordEvents(history).andThen(callbacks);
		TestLockRegistry lockRegistry = quorum ? TestLockRegistry.createOnQuorum(nodes, settings, events)
				: TestLockRegistry.create(driver, lockUri, settings, events);
		List<String> apis = quorum ? WorkerOps.QUORUM_APIS : WorkerOps.APIS;
		ValiditySampler sampler = new ValiditySampler(seed + 1);
		FreshRegistries freshRegistries = new FreshRegistries(driver, lockUri, settings, events, history, incarnation,
				sampler);
		FreshRegistries.@Nullable Fresh rival = quorum ? null : freshRegistries.openRival();
		RedisLockRegistry engine = lockRegistry.registry();
		RecordingLockRegistry recorder = new RecordingLockRegistry(engine, history, incarnation, sampler,
				settings.lockDelay());
		RedisTestClient store = RedisTestClient.connect(storeUri, Duration.ofSeconds(5));
		RedisConnectionFactory fenceConnections = TestDriver.SPRING_DATA_JEDIS.connectionFactory(storeUri,
				Duration.ofSeconds(5));
		RedisFence fence = new RedisFence(new StringRedisTemplate(fenceConnections), CriticalSection.FENCE_PREFIX);
		CriticalSection critical = new CriticalSection(new FencedRegister(store.sync()), fence, history);
		KeptHolds kept = new KeptHolds();
		ExecutorService async = Executors.newFixedThreadPool(threads);
		ConfigurableApplicationContext context = context(nodes.get(0), recorder, critical, async, history);
		CheckedService service = context.getBean(CheckedService.class);
		Random random = new Random(seed);
		List<Thread> workers = new ArrayList<>();
		List<Thread> takers = new ArrayList<>();
		ParkedReleases parked = new ParkedReleases();
		GiveBackProbe probe = new GiveBackProbe(lockUri, settings, history);
		for (int t = 0; t < threads; t++) {
			WorkerOps ops = new WorkerOps(recorder, freshRegistries, service, critical, kept, history,
					random.nextLong(), apis, stopping::get);
			Thread worker = new Thread(ops, "check-worker-" + t);
			workers.add(worker);
		}
		callbacks.callBack(recorder.leadership(WorkerOps.LEADERSHIP));
		Thread leader = new Thread(
				new LeaderOps(recorder.leadership(WorkerOps.LEADERSHIP), history, random.nextLong(), stopping::get),
				"check-leader");
		workers.forEach(Thread::start);
		leader.start();
		System.out.println("READY");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null && !line.equals("exit"); line = in.readLine()) {
			String[] command = line.split(" ", 2);
			switch (command[0]) {
				case "interrupt" -> workers.get(random.nextInt(workers.size())).interrupt();
				case "take", "probe", "park-release", "lease-out-release", "give-back-probe" -> {
					if (!stopping.get()) {
						RecordingLockRegistry registry = (command[0].equals("take") || command[0].equals("probe"))
								? Objects.requireNonNull(rival, "a rival on a quorum").recorder() : recorder;
						WorkerOps ops = new WorkerOps(registry, freshRegistries, service, critical, kept, history,
								random.nextLong(), apis, stopping::get);
						String[] args = command[1].split(" ");
						Runnable call = switch (command[0]) {
							case "take" -> () -> ops.take(args[0],
									Duration.ofMillis((args.length > 1) ? Long.parseLong(args[1]) : 0));
							case "probe" -> () -> ops.probe(args[0], Long.parseLong(args[1]));
							case "park-release" -> () -> ops.parkedRelease(args[1], parked, args[0]);
							case "lease-out-release" -> () -> ops.leaseOutRelease(args[1], args[0]);
							default -> () -> probe.run(args[0]);
						};
						Thread taker = new Thread(call, "check-taker-" + takers.size());
						takers.add(taker);
						taker.start();
					}
				}
				case "watch-leader" -> {
					Thread watch = new Thread(
							new ThawWatch(recorder.leadership(WorkerOps.LEADERSHIP), history, command[1]),
							ThawWatch.THREAD_NAME);
					takers.add(watch);
					watch.start();
				}
				case "release-parked" -> parked.release(command[1]);
				case "interrupt-waiter" -> {
					List<Thread> waiting = recorder.waits().waiting(workers);
					if (!waiting.isEmpty()) {
						waiting.get(random.nextInt(waiting.size())).interrupt();
					}
				}
				case "keep" -> kept.prolong(Long.parseLong(command[1]));
				case "lease-left" -> {
					String[] args = command[1].split(" ");
					System.out
						.println("LEASE-LEFT " + args[0] + " " + kept.leaseLeft(Set.of(args[1].split(","))).orElse(-1));
				}
				case "status" ->
					System.out.println("STATUS " + command[1] + " " + status(recorder, engine, rival, kept));
				case "stop" -> {
					stopping.set(true);
					callbacks.awaitRestarts();
					stop(Stream.concat(workers.stream(), takers.stream()).toList(), leader, recorder, engine, history);
					sampler.close();
					System.out.println("STOPPED");
				}
				case "close" -> {
					context.close();
					async.shutdownNow();
					async.awaitTermination(10, TimeUnit.SECONDS);
					lockRegistry.close();
					if (rival != null) {
						rival.close();
					}
					store.close();
					((DisposableBean) fenceConnections).destroy();
					history.record("THREADS", "extra", String.join(",", LiveThreads.beyond(baseline, THREADS_SETTLE)));
					System.out.println("CLOSED");
				}
				default -> throw new IllegalArgumentException("Unknown command " + line);
			}
		}
		history.close();
	}

	/**
	 * Return a listener that records lost holds ({@code LOST}) and the terms of
	 * leaderships ({@code GRANTED}, {@code REVOKED}).
	 */
	private static Consumer<LockEvent> recordEvents(History history) {
		return (event) -> {
			if (event instanceof LockLostEvent) {
				history.record("LOST", "name", event.name(), "token", event.fencingToken(), "reason", event.reason(),
						"at", History.now());
			}
			else if (event instanceof LeadershipGrantedEvent granted) {
				// The time first: a term valid after it was valid at it
				long at = History.now();
				history.record("GRANTED", "name", granted.name(), "token", granted.fencingToken(), "at", at, "valid",
						granted.term().isValid());
			}
			else if (event instanceof LeadershipRevokedEvent revoked) {
				history.record("REVOKED", "name", revoked.name(), "token", revoked.fencingToken(), "reason",
						revoked.reason(), "at", History.now());
			}
		};
	}

	/**
	 * Return the lock delay of the workers of the given seed: {@link #LOCK_DELAY} when it
	 * is odd, otherwise none; on a Redlock quorum always {@link #LOCK_DELAY}, since a
	 * node that restarted counts again once the lease and lock delay of the caller's
	 * settings passed, which keeps holds apart only when every client of a lock uses the
	 * same ones.
	 * @param seed the worker's seed
	 * @param quorum whether the worker locks on a Redlock quorum
	 * @return the lock delay
	 */
	static Duration lockDelay(long seed, boolean quorum) {
		return (quorum || (seed & 1) != 0) ? LOCK_DELAY : Duration.ZERO;
	}

	/**
	 * Return what this JVM waits for in Redis, what it holds, what it holds while another
	 * of its threads waits for it, what it keeps still valid with at least
	 * {@link #KEPT_AHEAD} left, which of those it keeps as read shares or permits, and
	 * what it keeps with less than {@link #ENDING} left:
	 * {@code waiting=<names> holding=<names> queued=<names>
	 * kept=<names> shares=<names> ending=<names>}, names separated by commas.
	 */
	private static String status(RecordingLockRegistry recorder, RedisLockRegistry engine,
			FreshRegistries.@Nullable Fresh rival, KeptHolds kept) {
		Set<String> ownHolding = heldLocks(engine);
		Set<String> holding = new TreeSet<>(ownHolding);
		if (rival != null) {
			holding.addAll(heldLocks(rival.registry().registry()));
		}
		Set<String> acquiring = recorder.waits().names();
		Set<String> queued = new TreeSet<>(acquiring);
		queued.retainAll(ownHolding);
		Set<String> waiting = new TreeSet<>(acquiring);
		waiting.addAll(recorder.standbys());
		waiting.removeAll(holding);
		return "waiting=" + String.join(",", waiting) + " holding=" + String.join(",", holding) + " queued="
				+ String.join(",", queued) + " kept="
				+ String.join(",", kept.valid((left) -> left >= KEPT_AHEAD.toMillis())) + " shares="
				+ String.join(",", kept.shares((left) -> left >= KEPT_AHEAD.toMillis())) + " ending="
				+ String.join(",", kept.kept((left) -> left < ENDING.toMillis()));
	}

	private static Set<String> heldLocks(RedisLockRegistry engine) {
		return engine.heldLocks().stream().map(HeldLock::name).collect(Collectors.toCollection(TreeSet::new));
	}

	private static void stop(List<Thread> workers, Thread leader, RecordingLockRegistry recorder,
			RedisLockRegistry engine, History history) throws InterruptedException {
		long deadline = System.nanoTime() + STOP_BOUND.toNanos();
		for (Thread worker : Stream.concat(workers.stream(), Stream.of(leader)).toList()) {
			worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
			if (worker.isAlive()) {
				history.record("HUNG", "api", "thread", "thread", worker.getName(), "stack",
						Arrays.stream(worker.getStackTrace())
							.limit(12)
							.map(StackTraceElement::toString)
							.collect(Collectors.joining("<")));
			}
		}
		recorder.leadership(WorkerOps.LEADERSHIP).stop();
		for (HeldLock held : engine.heldLocks()) {
			history.record("HELD", "name", held.name(), "token", held.fencingToken(), "owner", held.owner());
		}
	}

	private static ConfigurableApplicationContext context(String lockUri, RecordingLockRegistry registry,
			CriticalSection critical, ExecutorService async, History history) {
		RedisURI uri = RedisURI.create(lockUri);
		return new SpringApplicationBuilder(WorkerConfiguration.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + uri.getHost(),
					"spring.data.redis.port=" + uri.getPort(), "spring.data.redis.timeout=1s",
					"distlock.lease-time=" + LEASE.toMillis() + "ms")
			.initializers((context) -> {
				context.getBeanFactory().registerSingleton("lockRegistry", registry);
				context.getBeanFactory().registerSingleton("criticalSection", critical);
				context.getBeanFactory().registerSingleton("checkAsync", async);
				context.getBeanFactory().registerSingleton("checkHistory", history);
			})
			.run();
	}

	/**
	 * The worker's Spring context: Spring Boot's Redis and distlock auto-configuration,
	 * with the recording registry, the critical section, the executor of asynchronous
	 * bodies and the history registered as singletons, and the annotated service and the
	 * recording transaction manager as beans.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
			DistLockInterceptionAutoConfiguration.class })
	@EnableTransactionManagement
	static class WorkerConfiguration {

		@Bean
		RecordingTransactionManager transactionManager(History checkHistory) {
			return new RecordingTransactionManager(checkHistory);
		}

		@Bean
		CheckedService checkedService(RecordingLockRegistry lockRegistry, CriticalSection criticalSection,
				ExecutorService checkAsync) {
			return new CheckedService(lockRegistry, criticalSection, checkAsync);
		}

	}

}
