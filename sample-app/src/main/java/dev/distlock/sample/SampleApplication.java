package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample application. Run it with {@code ./mvnw -pl sample-app -am spring-boot:run}:
 * when no Redis answers at {@code spring.data.redis.*}, it starts a bundled
 * {@code redis-server} (see {@link EmbeddedRedisLauncher}).
 *
 * @author distlock
 */
@SpringBootApplication
public class SampleApplication {

	/**
	 * Start the application.
	 * @param args the command line arguments
	 */
	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new EmbeddedRedisLauncher());
		application.run(args);
	}

}
