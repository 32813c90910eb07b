package dev.distlock.redis.connection;

import java.time.Duration;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockConnections}: the connection factory alone decides the driver
 * path, Lettuce's own client on a {@link LettuceConnectionFactory} and Spring Data Redis
 * on any other, and both answer with the factory's command timeout.
 */
@Timeout(30)
class LockConnectionsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void sendsOnLettucesOwnClientForALettuceConnectionFactory() throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(standalone(),
				LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build());
		LockConnection connection = this.closer.add(LockConnections.of(started(factory)));
		assertThat(connection).isInstanceOf(LettuceLockConnection.class);
		assertThat(connection.ping()).succeedsWithin(TIMEOUT).isEqualTo("PONG");
		assertThat(LockConnections.commandTimeoutOf(factory)).isEqualTo(TIMEOUT);
	}

	@Test
	void sendsThroughSpringDataRedisForAJedisConnectionFactory() throws Exception {
		JedisConnectionFactory factory = new JedisConnectionFactory(standalone(),
				JedisClientConfiguration.builder().readTimeout(TIMEOUT).usePooling().build());
		LockConnection connection = this.closer.add(LockConnections.of(started(factory)));
		assertThat(connection).isInstanceOf(SpringDataLockConnection.class);
		assertThat(connection.ping()).succeedsWithin(TIMEOUT).isEqualTo("PONG");
		assertThat(LockConnections.commandTimeoutOf(factory)).isEqualTo(TIMEOUT);
	}

	private static RedisStandaloneConfiguration standalone() {
		return new RedisStandaloneConfiguration("127.0.0.1", redis.server().port());
	}

	private <F extends RedisConnectionFactory & InitializingBean & SmartLifecycle & DisposableBean> F started(F factory)
			throws Exception {
		factory.afterPropertiesSet();
		factory.start();
		this.closer.add(factory::destroy);
		return factory;
	}

}
