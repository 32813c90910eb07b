package dev.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.DistributedLockException;
import dev.distlock.redis.QuorumNodes;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * ACL users on the nodes of a Redlock quorum: the minimum ACL of one Redis
 * ({@link RedisAclTests#MINIMUM_ACL}) plus {@code +lastsave +info}, from which the
 * quorum's acquire script reads how long a node has been up ({@code INFO} only after a
 * save within the minimum uptime), lets every node grant; without either rule on every
 * node, the quorum grants nothing and the caller is told what the nodes said.
 */
@Timeout(90)
class RedlockAclTests {

	/** The rules a node of a quorum needs beyond those of one Redis. */
	private static final List<String> QUORUM_RULES = List.of("+lastsave", "+info");

	private static final Duration LEASE = Duration.ofMillis(1500);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/** How long a node must have been up to grant a lock of {@link #LEASE}. */
	private static final Duration MIN_UPTIME = QuorumNodes.minUptime(LEASE);

	private static final RedisLockSettings SETTINGS = TestLockRegistry.settings(LEASE)
		.withCommandTimeout(COMMAND_TIMEOUT);

	private static final String IN_SCRIPT = "The user executing the script can't run this command or subcommand";

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void userWithTheMinimumAclAndLastsaveAndInfoLocksOnAQuorum() {
		QuorumNodes nodes = nodes();
		TestLockRegistry registry = registry(nodes, quorumAcl());
		registry.registry().acquire("ledger", Duration.ZERO).release();
		save(nodes);
		registry.registry().acquire("ledger", Duration.ZERO).release();
	}

	@Test
	void withoutLastsaveNoNodeGrants() {
		TestLockRegistry registry = registry(nodes(), rulesWithout("+lastsave"));
		Throwable thrown = catchThrowable(() -> registry.registry().acquire("ledger", Duration.ZERO));
		System.out.println("[acl] quorum without +lastsave: " + thrown);
		assertThat(thrown).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("fewer than the majority of 2 (distlock.redlock.nodes); the first failure: ")
			.hasMessageContaining(IN_SCRIPT);
	}

	@Test
	void withoutInfoNodesThatSavedWithinTheMinimumUptimeGrantNothing() {
		QuorumNodes nodes = nodes();
		TestLockRegistry registry = registry(nodes, rulesWithout("+info"));
		registry.registry().acquire("ledger", Duration.ZERO).release();
		save(nodes);
		Throwable thrown = catchThrowable(() -> registry.registry().acquire("ledger", Duration.ZERO));
		System.out.println("[acl] quorum without +info, after a save: " + thrown);
		assertThat(thrown).isInstanceOf(DistributedLockException.class).hasMessageContaining(IN_SCRIPT);
	}

	private QuorumNodes nodes() {
		QuorumNodes nodes = this.closer.add(new QuorumNodes(3));
		nodes.awaitUp(MIN_UPTIME);
		return nodes;
	}

	/**
	 * Return the rules a node of a quorum needs.
	 */
	private static List<String> quorumAcl() {
		List<String> rules = new ArrayList<>(RedisAclTests.MINIMUM_ACL);
		rules.addAll(QUORUM_RULES);
		return rules;
	}

	/**
	 * Return the rules a node of a quorum needs but the given one.
	 */
	private static List<String> rulesWithout(String removed) {
		List<String> rules = quorumAcl();
		rules.remove(removed);
		return rules;
	}

	/**
	 * Create the user {@code locker} with the given rules on every node and return a
	 * registry that locks on the nodes as that user.
	 */
	private TestLockRegistry registry(QuorumNodes nodes, List<String> rules) {
		List<String> uris = new ArrayList<>();
		for (String uri : nodes.uris()) {
			RedisAclTests.setUser(admin(uri), "locker", rules);
			uris.add(uri.replace("redis://", "redis://locker:pw@"));
		}
		return this.closer.add(TestLockRegistry.createOnQuorum(uris, SETTINGS));
	}

	/**
	 * Save every node's data, which makes {@code LASTSAVE} recent: the acquire script
	 * then reads the node's uptime from {@code INFO server}.
	 */
	private void save(QuorumNodes nodes) {
		for (String uri : nodes.uris()) {
			assertThat(admin(uri).save()).isEqualTo("OK");
		}
	}

	private RedisCommands<String, String> admin(String uri) {
		return this.closer.add(RedisTestClient.connect(uri, COMMAND_TIMEOUT)).sync();
	}

}
