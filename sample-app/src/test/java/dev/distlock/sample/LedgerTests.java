package dev.distlock.sample;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.sample.ledger.Ledger;
import dev.distlock.sample.ledger.LedgerBalance;
import dev.distlock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger of a sample instance: posts to its in-memory H2 database under locks in a
 * real {@code redis-server}, fenced by distlock's {@code JdbcFence}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LedgerTests {

	private static @Nullable RedisServer redis;

	private static @Nullable SampleInstance instance;

	@BeforeAll
	static void startRedisAndAnInstance() {
		redis = RedisServer.start();
		instance = SampleInstance.start("ledger", redis.port());
	}

	@AfterAll
	static void stopInstanceAndRedis() throws Exception {
		SampleInstance.closeAll(instance, redis);
	}

	@Test
	void aPostCommitsTheBalanceAndTheFencingTokenInTheFenceTogether() {
		LedgerBalance opened = post("alice", 100);
		LedgerBalance posted = post("alice", -30);
		assertThat(posted.balance()).isEqualTo(70);
		assertThat(posted.fencingToken()).isGreaterThan(opened.fencingToken());
		assertThat(instance().http().get().uri("/ledger/alice").retrieve().body(LedgerBalance.class)).isEqualTo(posted);
		assertThat(fencedToken("alice")).isEqualTo(posted.fencingToken());
	}

	@Test
	void anAccountNothingWasPostedToIsNotFound() {
		assertThat(instance().answer(HttpMethod.GET, "/ledger/nobody").getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
	}

	@Test
	void staleWriteDemoAnswersConflictNamingBothTokensAndTheNewerPostStands() {
		LedgerBalance opened = post("bob", 100);
		ResponseEntity<Map<String, Object>> refused = instance().answer(HttpMethod.POST,
				"/ledger/bob/stale-write-demo?amount=10");
		assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
		assertThat(refused.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		Map<String, Object> problem = refused.getBody();
		assertThat(problem).containsEntry("status", 409)
			.containsEntry("resource", "ledger:bob")
			.containsEntry("instance", "/ledger/bob/stale-write-demo");
		long staleToken = ((Number) problem.get("fencingToken")).longValue();
		long newerToken = ((Number) problem.get("highestToken")).longValue();
		assertThat(staleToken).isGreaterThan(opened.fencingToken()).isLessThan(newerToken);
		assertThat((String) problem.get("detail")).contains("Fencing token " + staleToken, "token " + newerToken);
		assertThat(instance().http().get().uri("/ledger/bob").retrieve().body(LedgerBalance.class))
			.isEqualTo(new LedgerBalance("bob", 110, newerToken));
		assertThat(fencedToken("bob")).isEqualTo(newerToken);
	}

	private static LedgerBalance post(String account, long amount) {
		return instance().http()
			.post()
			.uri("/ledger/{account}?amount={amount}", account, amount)
			.retrieve()
			.body(LedgerBalance.class);
	}

	private static long fencedToken(String account) {
		return instance().bean(JdbcClient.class)
			.sql("SELECT token FROM distlock_fence WHERE resource = ?")
			.param(Ledger.lockName(account))
			.query(Long.class)
			.single();
	}

	private static SampleInstance instance() {
		assertThat(instance).isNotNull();
		return instance;
	}

}
