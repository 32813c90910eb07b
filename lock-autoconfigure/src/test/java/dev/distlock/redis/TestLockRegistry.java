package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;
import dev.distlock.observation.LockMeterObservationHandler;
import dev.distlock.observation.ObservationLockObserver;
import dev.distlock.redis.connection.LockConnections;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.LettuceClients;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link RedisLockRegistry} on its own Lettuce client or Spring Data Redis connection
 * factory, as one application instance would have it, recording the
 * {@link LockLostEvent}s, {@link LockRenewalFailedEvent}s,
 * {@link LeadershipGrantedEvent}s and {@link LeadershipRevokedEvent}s it publishes.
 */
public final class TestLockRegistry implements AutoCloseable {

	/**
	 * The method a thread is in while it waits for a lock's release: subscribed to its
	 * release signals, or polling; for {@code TestThread.awaitIn}.
	 */
	public static final String WAITING_FOR_RELEASE = "dev.distlock.redis.ReleaseSignals$Subscription.await";

	/**
	 * The method a thread is in while it waits behind an earlier waiter of its JVM for a
	 * lock; for {@code TestThread.awaitIn}.
	 */
	public static final String WAITING_IN_TURN = "dev.distlock.redis.LocalLock.awaitTurn";

	/**
	 * The component of a {@link LeadershipGrantedEvent} that comparisons with
	 * {@link #grant(String, long)} ignore: the term's lease, which only the registry
	 * creates.
	 */
	public static final String TERM = "term";

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final Runnable connection;

	private final RedisLockRegistry registry;

	private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

	private final List<LockRenewalFailedEvent> renewalFailures = new CopyOnWriteArrayList<>();

	private final List<LockEvent> leadershipEvents = new CopyOnWriteArrayList<>();

	private TestLockRegistry(AbstractRedisClient client, RedisLockSettings settings, Consumer<LockEvent> listener,
			LockObserver observer) {
		this.connection = () -> LettuceClients.shutdown(client);
		this.registry = new RedisLockRegistry(LockConnections.lettuce(client), settings, recordAndTell(listener),
				observer);
	}

	private TestLockRegistry(List<RedisClient> clients, RedlockSettings redlock, RedisLockSettings settings,
			Consumer<LockEvent> listener) {
		this.connection = () -> clients.forEach(LettuceClients::shutdown);
		this.registry = new RedisLockRegistry(clients.stream().map(LockConnections::lettuce).toList(), redlock,
				settings, recordAndTell(listener), LockObserver.NONE);
	}

	private TestLockRegistry(RedisConnectionFactory connectionFactory, RedisLockSettings settings,
			Consumer<LockEvent> listener) {
		this.connection = () -> {
			try {
				((DisposableBean) connectionFactory).destroy();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		};
		this.registry = new RedisLockRegistry(LockConnections.of(connectionFactory), settings, recordAndTell(listener),
				LockObserver.NONE);
	}

	/**
	 * Create a registry on the server or Sentinel group at {@code uri} through the given
	 * driver, with the given settings; the driver's timeout is the settings' command
	 * timeout.
	 * @param driver how the registry talks to Redis
	 * @param uri a Redis URI such as {@code RedisServer.uri()}, or a Sentinel URI such as
	 * {@code SentinelGroup.uri()}
	 * @param settings the registry settings
	 * @return the registry
	 */
	public static TestLockRegistry create(TestDriver driver, String uri, RedisLockSettings settings) {
		return create(driver, uri, settings, TestLockRegistry::ignore);
	}

	/**
	 * Create a registry on the server or Sentinel group at {@code uri} through the given
	 * driver, with the given settings, that also tells the given listener of every event
	 * it publishes; the driver's timeout is the settings' command timeout.
	 * @param driver how the registry talks to Redis
	 * @param uri a Redis URI such as {@code RedisServer.uri()}, or a Sentinel URI such as
	 * {@code SentinelGroup.uri()}
	 * @param settings the registry settings
	 * @param listener told of every event after it was recorded
	 * @return the registry
	 */
	public static TestLockRegistry create(TestDriver driver, String uri, RedisLockSettings settings,
			Consumer<LockEvent> listener) {
		if (driver == TestDriver.LETTUCE) {
			return onLettuce(uri, settings, listener, LockObserver.NONE);
		}
		return new TestLockRegistry(driver.connectionFactory(uri, settings.commandTimeout()), settings, listener);
	}

	/**
	 * Create a registry through the given driver with key prefix {@code lock:}, the given
	 * lease time and a command timeout of 2 seconds.
	 * @param driver how the registry talks to Redis
	 * @param uri a Redis URI such as {@code RedisServer.uri()}, or a Sentinel URI
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	public static TestLockRegistry create(TestDriver driver, String uri, Duration leaseTime) {
		return create(driver, uri, settings(leaseTime));
	}

	/**
	 * Create a registry on the Redis Cluster whose nodes are at {@code uris} through the
	 * given driver, with key prefix {@code lock:}, the given lease time and a command
	 * timeout of 2 seconds.
	 * @param driver how the registry talks to Redis
	 * @param uris the URIs of the cluster's nodes, such as {@code RedisCluster.uris()}
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	public static TestLockRegistry createOnCluster(TestDriver driver, List<String> uris, Duration leaseTime) {
		if (driver == TestDriver.LETTUCE) {
			return createOnCluster(uris, leaseTime);
		}
		return new TestLockRegistry(driver.clusterConnectionFactory(uris, COMMAND_TIMEOUT), settings(leaseTime),
				TestLockRegistry::ignore);
	}

	/**
	 * Create a registry on the server at {@code uri} with the given settings; the URI's
	 * timeout is set to the settings' command timeout.
	 * @param uri a Redis URI such as {@code RedisServer.uri()}, or a Sentinel URI such as
	 * {@code SentinelGroup.uri()}
	 * @param settings the registry settings
	 * @return the registry
	 */
	public static TestLockRegistry create(String uri, RedisLockSettings settings) {
		return create(TestDriver.LETTUCE, uri, settings);
	}

	/**
	 * Create a registry on the server at {@code uri} with the given settings, reporting
	 * to the given observer; the URI's timeout is set to the settings' command timeout.
	 * @param uri a Redis URI such as {@code RedisServer.uri()}
	 * @param settings the registry settings
	 * @param observer told of every wait for a lock and of what became of every hold
	 * @return the registry
	 */
	public static TestLockRegistry create(String uri, RedisLockSettings settings, LockObserver observer) {
		return onLettuce(uri, settings, TestLockRegistry::ignore, observer);
	}

	private static TestLockRegistry onLettuce(String uri, RedisLockSettings settings, Consumer<LockEvent> listener,
			LockObserver observer) {
		RedisURI redisUri = RedisURI.create(uri);
		redisUri.setTimeout(settings.commandTimeout());
		return new TestLockRegistry(RedisClient.create(redisUri), settings, listener, observer);
	}

	/**
	 * Create a registry with key prefix {@code lock:}, the given lease time and a command
	 * timeout of 2 seconds.
	 * @param uri a Redis URI such as {@code RedisServer.uri()}
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	public static TestLockRegistry create(String uri, Duration leaseTime) {
		return create(uri, settings(leaseTime));
	}

	/**
	 * Create a registry on a quorum of independent Redis nodes (Redlock) at {@code uris},
	 * one Lettuce client each, with the given settings and the default drift factor; each
	 * URI's timeout is set to the settings' command timeout.
	 * @param uris the URIs of the nodes, such as {@code RedisServer.uri()}
	 * @param settings the registry settings
	 * @return the registry
	 */
	public static TestLockRegistry createOnQuorum(List<String> uris, RedisLockSettings settings) {
		return createOnQuorum(uris, settings, TestLockRegistry::ignore);
	}

	/**
	 * Create a registry on a quorum of independent Redis nodes (Redlock) at {@code uris},
	 * one Lettuce client each, with the given settings and the default drift factor, that
	 * also tells the given listener of every event it publishes; each URI's timeout is
	 * set to the settings' command timeout.
	 * @param uris the URIs of the nodes, such as {@code RedisServer.uri()}
	 * @param settings the registry settings
	 * @param listener told of every event after it was recorded
	 * @return the registry
	 */
	public static TestLockRegistry createOnQuorum(List<String> uris, RedisLockSettings settings,
			Consumer<LockEvent> listener) {
		List<RedisClient> clients = uris.stream().map((uri) -> {
			RedisURI redisUri = RedisURI.create(uri);
			redisUri.setTimeout(settings.commandTimeout());
			return RedisClient.create(redisUri);
		}).toList();
		return new TestLockRegistry(clients, new RedlockSettings(RedlockSettings.DEFAULT_DRIFT_FACTOR), settings,
				listener);
	}

	/**
	 * Create a registry on the Redis Cluster whose nodes are at {@code uris}, with key
	 * prefix {@code lock:}, the given lease time and a command timeout of 2 seconds.
	 * @param uris the URIs of the cluster's nodes, such as {@code RedisCluster.uris()}
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	public static TestLockRegistry createOnCluster(List<String> uris, Duration leaseTime) {
		List<RedisURI> nodes = uris.stream().map(RedisURI::create).toList();
		nodes.forEach((node) -> node.setTimeout(COMMAND_TIMEOUT));
		return new TestLockRegistry(RedisClusterClient.create(nodes), settings(leaseTime), TestLockRegistry::ignore,
				LockObserver.NONE);
	}

	/**
	 * Return the grant of a term of the given leadership, with key prefix {@code lock:},
	 * and the given fencing token, to compare with the events recorded ignoring the
	 * {@link #TERM} field.
	 * @param name the leadership's name
	 * @param fencingToken the term's fencing token
	 * @return the event, with no term
	 */
	public static LeadershipGrantedEvent grant(String name, long fencingToken) {
		return new LeadershipGrantedEvent(name, "lock:" + name, fencingToken, null);
	}

	/**
	 * Return how many waiters wait in Redis for the lock with the given key (a waiter
	 * that died counts until it is skipped).
	 * @param commands a connection to the lock's Redis
	 * @param lockKey the lock key
	 * @return the length of the lock's wait queue
	 */
	public static long waitersOf(RedisCommands<String, String> commands, String lockKey) {
		return commands.zcard(LockKeys.helperKey(lockKey, LockKeys.QUEUE));
	}

	/**
	 * Listen to the messages that grant locks to the waiters of every registry with key
	 * prefix {@code lock:}, or wake them, from now on.
	 * @param client a Lettuce client, owned by the caller
	 * @param closer closes the subscription
	 * @return the messages received: the key of a lock released, or granted with the
	 * grant's details after it
	 */
	static BlockingQueue<String> grantMessages(RedisClient client, Closer closer) {
		BlockingQueue<String> messages = new LinkedBlockingQueue<>();
		StatefulRedisPubSubConnection<String, String> connection = closer.add(client.connectPubSub());
		connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String pattern, String channel, String message) {
				messages.add(message);
			}

		});
		connection.sync().psubscribe("lock:" + LockName.RESERVED + "grants:*");
		return messages;
	}

	/**
	 * Return the commands a registry with key prefix {@code lock:} and a lease time of 30
	 * seconds sends, on a connection of their own from the given client, for tests that
	 * run the lock scripts one by one.
	 * @param client a Lettuce client, owned by the caller
	 * @return the commands; close them after use
	 */
	static RedisLockCommands commands(RedisClient client) {
		return new RedisLockCommands(LockConnections.lettuce(client), settings(Duration.ofSeconds(30)), Duration.ZERO);
	}

	/**
	 * Return the settings of {@link #create(TestDriver, String, Duration)}: key prefix
	 * {@code lock:}, the given lease time and a command timeout of 2 seconds.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the settings
	 */
	public static RedisLockSettings settings(Duration leaseTime) {
		return RedisLockSettings.of("lock:", leaseTime).withCommandTimeout(COMMAND_TIMEOUT);
	}

	/**
	 * Return an observer whose observations are recorded as distlock's meters in the
	 * given meter registry, as the metrics auto-configuration records them.
	 * @param meters the meter registry
	 * @return the observer
	 */
	public static LockObserver meteredBy(MeterRegistry meters) {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new LockMeterObservationHandler(meters));
		return new ObservationLockObserver(observations);
	}

	/**
	 * Return the registry.
	 * @return the registry
	 */
	public RedisLockRegistry registry() {
		return this.registry;
	}

	/**
	 * Return the lock-lost events published so far.
	 * @return the events
	 */
	public List<LockLostEvent> lostEvents() {
		return this.lostEvents;
	}

	/**
	 * Return the renewal-failed events published so far.
	 * @return the events
	 */
	public List<LockRenewalFailedEvent> renewalFailures() {
		return this.renewalFailures;
	}

	/**
	 * Return the leadership events published so far, granted and revoked, in the order
	 * they were published.
	 * @return the events
	 */
	public List<LockEvent> leadershipEvents() {
		return this.leadershipEvents;
	}

	private Consumer<LockEvent> recordAndTell(Consumer<LockEvent> listener) {
		return (event) -> {
			if (event instanceof LockLostEvent lost) {
				this.lostEvents.add(lost);
			}
			else if (event instanceof LockRenewalFailedEvent failed) {
				this.renewalFailures.add(failed);
			}
			else {
				this.leadershipEvents.add(event);
			}
			listener.accept(event);
		};
	}

	private static void ignore(LockEvent event) {
	}

	/**
	 * Close the registry, and shut its client down at once or destroy its connection
	 * factory.
	 */
	@Override
	public void close() {
		this.registry.close();
		this.connection.run();
	}

}
