package dev.distlock.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.sample.inventory.StockLevel;
import dev.distlock.testsupport.FreePorts;
import dev.distlock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EmbeddedRedisLauncher}: the bundled {@code redis-server} the sample
 * starts when no Redis answers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EmbeddedRedisLauncherTests {

	@Test
	void startsABundledRedisAtTheConfiguredPortWhenNoneAnswersAndStopsItWithTheContext() throws Exception {
		int nothingThere = FreePorts.find();
		try (SampleInstance instance = SampleInstance.run("--server.port=0", "--spring.main.banner-mode=off",
				"--spring.data.redis.port=" + nothingThere)) {
			assertThat(instance.property("spring.data.redis.port")).isEqualTo(Integer.toString(nothingThere));
			assertThat(answers(nothingThere)).isTrue();
			Map<String, Object> health = instance.http()
				.get()
				.uri("/actuator/health")
				.retrieve()
				.body(new ParameterizedTypeReference<>() {
				});
			assertThat(health).containsEntry("status", "UP");
		}
		assertThat(answers(nothingThere)).isFalse();
	}

	@Test
	void aSecondInstanceWithTheSameSettingsUsesTheFirstOnesBundledRedis() throws Exception {
		int port = FreePorts.find();
		String[] args = { "--server.port=0", "--spring.main.banner-mode=off", "--spring.data.redis.port=" + port };
		try (SampleInstance first = SampleInstance.run(args)) {
			try (SampleInstance second = SampleInstance.run(args)) {
				assertThat(second.property("spring.data.redis.port")).isEqualTo(Integer.toString(port));
				first.http().put().uri("/inventory/shared?stock=7").retrieve().toBodilessEntity();
				assertThat(second.http().get().uri("/inventory/shared").retrieve().body(StockLevel.class))
					.isEqualTo(new StockLevel("shared", 7));
			}
			assertThat(answers(port)).as("the first instance's Redis after the second stopped").isTrue();
		}
		assertThat(answers(port)).isFalse();
	}

	@Test
	void startsTheBundledRedisAtAFreePortWhenTheConfiguredOneCannotBeBound() throws Exception {
		try (Socket holder = new Socket()) {
			holder.bind(new InetSocketAddress("127.0.0.1", 0));
			int taken = holder.getLocalPort();
			try (SampleInstance instance = SampleInstance.run("--server.port=0", "--spring.main.banner-mode=off",
					"--spring.data.redis.port=" + taken)) {
				int bundledPort = Integer.parseInt(instance.property("spring.data.redis.port"));
				assertThat(bundledPort).isNotEqualTo(taken);
				assertThat(answers(bundledPort)).isTrue();
			}
		}
	}

	@Test
	void usesTheConfiguredRedisWhenItAnswers() throws Exception {
		try (RedisServer redis = RedisServer.start();
				SampleInstance instance = SampleInstance.run("--server.port=0", "--spring.main.banner-mode=off",
						"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port())) {
			assertThat(instance.property("spring.data.redis.port")).isEqualTo(Integer.toString(redis.port()));
			instance.http().put().uri("/inventory/probe?stock=1").retrieve().toBodilessEntity();
			assertThat(instance.http().get().uri("/inventory/probe").retrieve().body(StockLevel.class))
				.isEqualTo(new StockLevel("probe", 1));
			redis.flushAll();
			assertThat(instance.answer(HttpMethod.GET, "/inventory/probe").getStatusCode())
				.as("the stock after the configured Redis was flushed")
				.isEqualTo(HttpStatus.NOT_FOUND);
		}
	}

	private static boolean answers(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
