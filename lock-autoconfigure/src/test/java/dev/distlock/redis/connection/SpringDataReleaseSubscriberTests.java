package dev.distlock.redis.connection;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link SpringDataReleaseSubscriber} against a real Redis.
 */
@Timeout(30)
class SpringDataReleaseSubscriberTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final String CHANNEL = "lock!grants:test";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private final List<String> heard = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void channelSubscribedAgainHearsEachMessageOnce() throws Exception {
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()),
				JedisClientConfiguration.builder().readTimeout(TIMEOUT).usePooling().build());
		factory.afterPropertiesSet();
		factory.start();
		this.closer.add(factory::destroy);
		SpringDataReleaseSubscriber subscriber = this.closer
			.add(new SpringDataReleaseSubscriber(factory, this.heard::add));
		assertThat(subscriber.subscribe(CHANNEL)).succeedsWithin(TIMEOUT);
		// As a grant channel does after a waiter gave up on an unconfirmed subscription
		assertThat(subscriber.subscribe(CHANNEL)).succeedsWithin(TIMEOUT);
		try (RedisConnection connection = factory.getConnection()) {
			publish(connection, "lock:a");
			publish(connection, "lock:b");
		}
		// Messages of one channel arrive in order: a second copy of the first would
		// come before the second
		await().atMost(TIMEOUT).until(() -> this.heard.contains("lock:b"));
		assertThat(this.heard).containsExactly("lock:a", "lock:b");
	}

	private static void publish(RedisConnection connection, String message) {
		connection.commands()
			.publish(CHANNEL.getBytes(StandardCharsets.UTF_8), message.getBytes(StandardCharsets.UTF_8));
	}

}
