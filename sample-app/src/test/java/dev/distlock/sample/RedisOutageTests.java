package dev.distlock.sample;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application while its {@code redis-server} is stopped: the plain reads,
 * which call Redis without a lock, answer {@code 503 Service Unavailable} with problem
 * details, as the locked writes do.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisOutageTests {

	@Test
	void readsAndWritesAnswerServiceUnavailableWithProblemDetailsWhileRedisIsDown() {
		try (RedisServer redis = RedisServer.start();
				SampleInstance instance = SampleInstance.start("a", redis.port(), "spring.data.redis.timeout=1s")) {
			instance.http().put().uri("/inventory/apple?stock=3").retrieve().toBodilessEntity();
			instance.http().put().uri("/accounts/alice?balance=10").retrieve().toBodilessEntity();
			redis.stop();
			for (String read : List.of("/inventory/apple", "/inventory", "/accounts/alice", "/cleanup/runs",
					"/reports/daily")) {
				assertServiceUnavailable(instance, HttpMethod.GET, read, "Redis unavailable");
			}
			assertServiceUnavailable(instance, HttpMethod.POST, "/inventory/apple/reserve", "Lock failure");
		}
	}

	private static void assertServiceUnavailable(SampleInstance instance, HttpMethod method, String uri, String title) {
		ResponseEntity<Map<String, Object>> answer = instance.answer(method, uri);
		assertThat(answer.getStatusCode()).as(uri).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		assertThat(answer.getHeaders().getContentType()).as(uri).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(answer.getBody()).as(uri)
			.containsEntry("status", 503)
			.containsEntry("title", title)
			.containsEntry("instance", uri)
			.containsKey("detail");
	}

}
