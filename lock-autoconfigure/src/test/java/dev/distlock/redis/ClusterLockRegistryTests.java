package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.distlock.LockLease;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import dev.distlock.testsupport.LettuceClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link RedisLockRegistryContract} on a three-node Redis Cluster: registries connect
 * with a cluster client, and each lock's keys live in the slot of its name.
 */
class ClusterLockRegistryTests extends RedisLockRegistryContract {

	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void locksOnEveryNodeAreHeldThroughSeveralLeasesAndTheirTokensIncrease() throws Exception {
		try (TestLockRegistry holder = connect(Duration.ofMillis(600));
				TestLockRegistry rival = connect(Duration.ofMillis(600))) {
			List<LockLease> leases = new ArrayList<>();
			Set<Integer> slots = new HashSet<>();
			for (int i = 0; i < 60; i++) {
				String name = "order:" + i;
				slots.add(SlotHash.getSlot("lock:" + name));
				leases.add(holder.registry().acquire(name, Duration.ZERO));
			}
			assertThat(slots).hasSizeGreaterThan(30);
			Thread.sleep(1500);
			for (LockLease lease : leases) {
				assertThat(lease.isValid()).as(lease.name()).isTrue();
				assertThat(rival.registry().tryAcquire(lease.name(), Duration.ZERO)).as(lease.name()).isEmpty();
			}
			for (LockLease lease : leases) {
				lease.release();
				assertThat(rival.registry().acquire(lease.name(), Duration.ZERO).fencingToken())
					.isGreaterThan(lease.fencingToken());
			}
		}
	}

	@Override
	protected TestLockRegistry connect(Duration leaseTime) {
		return TestLockRegistry.createOnCluster(driver(), cluster.uris(), leaseTime);
	}

	@Override
	public List<String> serverUris() {
		return cluster.uris();
	}

	@Override
	protected Keys connectKeys(Closer closer) {
		List<RedisURI> nodes = cluster.uris().stream().map(RedisURI::create).toList();
		RedisClusterClient client = RedisClusterClient.create(nodes);
		closer.add(() -> LettuceClients.shutdown(client));
		StatefulRedisClusterConnection<String, String> connection = closer.add(client.connect());
		RedisAdvancedClusterCommands<String, String> commands = connection.sync();
		commands.flushall();
		return new Keys(commands, commands);
	}

}
