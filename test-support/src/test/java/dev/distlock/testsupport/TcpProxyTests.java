package dev.distlock.testsupport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link TcpProxy} between a Lettuce client and a real {@code redis-server}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpProxyTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	private static final Duration WAIT = Duration.ofSeconds(10);

	@Test
	void forwardsCommandsAndRepliesBothWays() {
		try (RedisServer server = RedisServer.start();
				TcpProxy proxy = TcpProxy.start(server.port());
				RedisTestClient client = RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT)) {
			client.sync().set("key", "value");
			assertThat(client.sync().get("key")).isEqualTo("value");
			assertThat(proxy.openConnections()).isOne();
		}
	}

	@Test
	void latencyDelaysEachReplyByAtLeastTheLatencyBothWays() {
		try (RedisServer server = RedisServer.start();
				TcpProxy proxy = TcpProxy.start(server.port());
				RedisTestClient client = RedisTestClient.connect(proxy.uri(), Duration.ofSeconds(5))) {
			client.sync().ping();
			proxy.setLatency(Duration.ofMillis(150));
			long start = System.nanoTime();
			client.sync().ping();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		}
	}

	@Test
	void replyLatencyDelaysTheRepliesAloneAndHealEndsIt() throws Exception {
		try (LaggingLink link = LaggingLink.start()) {
			long start = System.nanoTime();
			CompletableFuture<String> set = link.setWithRepliesLate("sent", Duration.ofMillis(1500));
			assertThat(set.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
			link.proxy().heal();
			start = System.nanoTime();
			link.client().sync().ping();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
		}
	}

	@Test
	void stallOfTheRequestsLetsTheRepliesOfEarlierCommandsThroughAndHoldsLaterCommandsUntilHeal() throws Exception {
		try (LaggingLink link = LaggingLink.start()) {
			CompletableFuture<String> earlier = link.setWithRepliesLate("earlier", Duration.ofMillis(1000));
			link.proxy().stallRequests();
			assertThat(earlier.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
			CompletableFuture<String> later = CompletableFuture
				.supplyAsync(() -> link.client().sync().set("later", "1"));
			Thread.sleep(300);
			assertThat(link.direct().sync().exists("later"))
				.as("a command sent after the stall has not reached the server")
				.isZero();
			link.proxy().heal();
			assertThat(later.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
			assertThat(link.direct().sync().get("later")).isEqualTo("1");
		}
	}

	@Test
	void stallHoldsTheBytesUntilHealDeliversThem() {
		try (RedisServer server = RedisServer.start();
				TcpProxy proxy = TcpProxy.start(server.port());
				RedisTestClient client = RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT);
				RedisTestClient direct = RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT)) {
			client.sync().ping();
			proxy.stall();
			assertThatExceptionOfType(RedisCommandTimeoutException.class)
				.isThrownBy(() -> client.sync().set("held", "1"));
			assertThat(direct.sync().exists("held")).as("a stalled command has not reached the server").isZero();
			proxy.heal();
			await().atMost(WAIT).untilAsserted(() -> assertThat(direct.sync().get("held")).isEqualTo("1"));
			await().atMost(WAIT).untilAsserted(() -> assertThat(client.sync().ping()).isEqualTo("PONG"));
		}
	}

	@Test
	void stallOfTheOpenConnectionsLetsNewOnesFlowAndDeliversTheirBytesOnHealEvenAfterTheyClosed() {
		try (RedisServer server = RedisServer.start();
				TcpProxy proxy = TcpProxy.start(server.port());
				RedisTestClient direct = RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT)) {
			RedisTestClient stalled = RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT);
			stalled.sync().ping();
			proxy.stallOpenConnections();
			assertThatExceptionOfType(RedisCommandTimeoutException.class)
				.isThrownBy(() -> stalled.sync().set("held", "1"));
			stalled.close();
			try (RedisTestClient flowing = RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT)) {
				assertThat(flowing.sync().ping()).as("a connection opened after the stall").isEqualTo("PONG");
			}
			assertThat(direct.sync().exists("held")).as("a stalled command has not reached the server").isZero();
			proxy.heal();
			await().atMost(WAIT).untilAsserted(() -> assertThat(direct.sync().get("held")).isEqualTo("1"));
			await().atMost(WAIT).until(() -> proxy.openConnections() == 0);
		}
	}

	@Test
	void cutClosesEveryConnectionAndRefusesNewOnesUntilHeal() {
		try (RedisServer server = RedisServer.start();
				TcpProxy proxy = TcpProxy.start(server.port());
				RedisTestClient client = RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT)) {
			client.sync().ping();
			proxy.cutConnections();
			await().atMost(WAIT).until(() -> proxy.openConnections() == 0);
			assertThatExceptionOfType(RedisException.class)
				.isThrownBy(() -> RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT).close());
			proxy.heal();
			await().atMost(WAIT).untilAsserted(() -> assertThat(client.sync().ping()).isEqualTo("PONG"));
		}
	}

	@Test
	void closeStopsEveryThreadOfTheProxy() {
		String prefix;
		try (RedisServer server = RedisServer.start();
				TcpProxy proxy = TcpProxy.start(server.port());
				RedisTestClient client = RedisTestClient.connect(proxy.uri(), COMMAND_TIMEOUT)) {
			prefix = "tcp-proxy-" + proxy.port();
			client.sync().ping();
			assertThat(proxyThreads(prefix)).isPositive();
		}
		await().atMost(WAIT).until(() -> proxyThreads(prefix) == 0);
	}

	private static long proxyThreads(String prefix) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith(prefix))
			.count();
	}

	/**
	 * A server, a proxy in front of it, a client through the proxy and one straight to
	 * the server.
	 *
	 * @param server the server
	 * @param proxy the proxy
	 * @param client the client through the proxy
	 * @param direct the client straight to the server
	 */
	private record LaggingLink(RedisServer server, TcpProxy proxy, RedisTestClient client,
			RedisTestClient direct) implements AutoCloseable {

		static LaggingLink start() {
			RedisServer server = RedisServer.start();
			TcpProxy proxy = TcpProxy.start(server.port());
			return new LaggingLink(server, proxy, RedisTestClient.connect(proxy.uri(), Duration.ofSeconds(5)),
					RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT));
		}

		/**
		 * Delay the replies through the proxy by the given time, set a key through it on
		 * another thread, and wait until the server has it, well before the reply comes.
		 */
		CompletableFuture<String> setWithRepliesLate(String key, Duration lag) {
			this.client.sync().ping();
			this.proxy.setReplyLatency(lag);
			CompletableFuture<String> set = CompletableFuture.supplyAsync(() -> this.client.sync().set(key, "1"));
			await().atMost(lag.multipliedBy(9).dividedBy(10))
				.untilAsserted(
						() -> assertThat(this.direct.sync().get(key)).as("the command reached the server at once")
							.isEqualTo("1"));
			return set;
		}

		@Override
		public void close() {
			this.direct.close();
			this.client.close();
			this.proxy.close();
			this.server.close();
		}

	}

}
