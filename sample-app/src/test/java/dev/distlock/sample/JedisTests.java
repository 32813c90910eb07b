package dev.distlock.sample;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.sample.inventory.StockLevel;
import dev.distlock.testsupport.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The sample application on Jedis, as the {@code jedis} execution of the tests runs it,
 * with Lettuce off the class path: checks that it is so, so that the other tests of that
 * execution cannot pass on Lettuce. Tagged {@code jedis}, which the default execution, on
 * Lettuce, leaves out.
 */
@Tag("jedis")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JedisTests {

	@Test
	void locksThroughBootsJedisConnectionFactoryWithoutLettuceOnTheClassPath() throws Exception {
		assertThatExceptionOfType(ClassNotFoundException.class)
			.isThrownBy(() -> Class.forName("io.lettuce.core.RedisClient", false, getClass().getClassLoader()));
		try (RedisServer redis = RedisServer.start();
				SampleInstance instance = SampleInstance.start("jedis", redis.port())) {
			assertThat(instance.bean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
			StringRedisTemplate redisTemplate = instance.bean(StringRedisTemplate.class);
			try (LockLease lease = instance.bean(LockRegistry.class).acquire("inventory:pear", Duration.ZERO)) {
				assertThat(redisTemplate.hasKey("sample:lock:inventory:pear")).isTrue();
			}
			assertThat(redisTemplate.hasKey("sample:lock:inventory:pear")).isFalse();
			instance.http().put().uri("/inventory/pear?stock=2").retrieve().toBodilessEntity();
			assertThat(instance.http().post().uri("/inventory/pear/reserve").retrieve().body(StockLevel.class))
				.isEqualTo(new StockLevel("pear", 1));
		}
	}

}
