package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.distlock.LockLease;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock engine on a real three-node Redis Cluster: keys of one lock share a slot, the
 * watchdog renews locks spread over every node, and waiters are woken across nodes.
 */
@Timeout(60)
class ClusterLockTests {

	private static final List<RedisServer> nodes = new ArrayList<>();

	private static RedisClusterClient client;

	private static RedisLockRegistry registry;

	private static RedisLockRegistry rival;

	private static RedisClusterClient rivalClient;

	@BeforeAll
	static void startCluster() {
		for (int i = 0; i < 3; i++) {
			nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"));
		}
		int[][] ranges = { { 0, 5460 }, { 5461, 10922 }, { 10923, 16383 } };
		for (int i = 0; i < 3; i++) {
			try (RedisTestClient node = RedisTestClient.connect(nodes.get(i).uri(), Duration.ofSeconds(10))) {
				node.sync().clusterAddSlots(IntStream.rangeClosed(ranges[i][0], ranges[i][1]).toArray());
				if (i > 0) {
					node.sync().clusterMeet("127.0.0.1", nodes.get(0).port());
				}
			}
		}
		for (RedisServer node : nodes) {
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
				try (RedisTestClient check = RedisTestClient.connect(node.uri(), Duration.ofSeconds(5))) {
					return check.sync().clusterInfo().contains("cluster_state:ok");
				}
			});
		}
		client = clusterClient();
		rivalClient = clusterClient();
		RedisLockSettings settings = RedisLockSettings.of("lock:", Duration.ofMillis(600))
			.withCommandTimeout(Duration.ofSeconds(2));
		registry = new RedisLockRegistry(client, settings, (event) -> {
		});
		rival = new RedisLockRegistry(rivalClient, settings, (event) -> {
		});
	}

	@AfterAll
	static void stopCluster() {
		if (registry != null) {
			registry.close();
			rival.close();
			client.shutdown(Duration.ZERO, Duration.ZERO);
			rivalClient.shutdown(Duration.ZERO, Duration.ZERO);
		}
		nodes.forEach(RedisServer::close);
	}

	@Test
	void locksOnEveryNodeAreHeldThroughSeveralLeasesAndFencingTokensIncrease() throws Exception {
		List<LockLease> leases = new ArrayList<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; i < 60; i++) {
			String name = "order:" + i;
			slots.add(SlotHash.getSlot("lock:" + name));
			leases.add(registry.acquire(name, Duration.ZERO));
		}
		assertThat(slots).hasSizeGreaterThan(30);
		Thread.sleep(1500);
		for (LockLease lease : leases) {
			assertThat(lease.isValid()).as(lease.name()).isTrue();
			assertThat(rival.tryAcquire(lease.name(), Duration.ZERO)).as(lease.name()).isEmpty();
		}
		for (LockLease lease : leases) {
			lease.release();
			assertThat(rival.acquire(lease.name(), Duration.ZERO).fencingToken()).isGreaterThan(lease.fencingToken());
		}
	}

	@Test
	void waiterOnOneClientIsWokenByAReleaseFromAnother() throws Exception {
		LockLease held = rival.acquire("report", Duration.ZERO);
		CompletableFuture<LockLease> waiting = CompletableFuture
			.supplyAsync(() -> registry.acquire("report", Duration.ofSeconds(20)));
		Thread.sleep(200);
		long releasedAt = System.nanoTime();
		held.release();
		LockLease acquired = waiting.get(10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(5));
		assertThat(acquired.fencingToken()).isGreaterThan(held.fencingToken());
		acquired.release();
	}

	private static RedisClusterClient clusterClient() {
		List<RedisURI> uris = nodes.stream().map((node) -> RedisURI.create(node.uri())).toList();
		uris.forEach((uri) -> uri.setTimeout(Duration.ofSeconds(2)));
		return RedisClusterClient.create(uris);
	}

}
