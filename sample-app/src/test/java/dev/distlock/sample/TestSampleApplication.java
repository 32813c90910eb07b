package dev.distlock.sample;

import com.redis.testcontainers.RedisContainer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * Runs the sample against Redis in a Docker container, for those who have Docker:
 * {@code ./mvnw -pl sample-app spring-boot:test-run}. Spring Boot's
 * {@link ServiceConnection @ServiceConnection} points {@code spring.data.redis.*} at the
 * container, and the {@code testcontainers} profile
 * ({@code application-testcontainers.yml}) turns the bundled {@code redis-server} off.
 */
public final class TestSampleApplication {

	private TestSampleApplication() {
	}

	/**
	 * Start the application with a Redis container.
	 * @param args the command line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.from(SampleApplication::main)
			.with(RedisContainerConfiguration.class)
			.withAdditionalProfiles("testcontainers")
			.run(args);
	}

	/**
	 * The Redis container. Deliberately not annotated {@code @TestConfiguration}: the
	 * application's component scan covers this package, and the tests, which start the
	 * application without Spring's test framework, must not pick it up and start Docker.
	 */
	static class RedisContainerConfiguration {

		@Bean
		@ServiceConnection
		RedisContainer redisContainer() {
			return new RedisContainer(RedisContainer.DEFAULT_IMAGE_NAME.withTag(RedisContainer.DEFAULT_TAG));
		}

	}

}
