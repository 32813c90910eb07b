package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The sample application: an inventory, accounts, a scheduled cleanup job, a daily
 * report, a stock summary that the leader alone writes, and a ledger in an in-memory
 * database, each guarded by distlock, served over HTTP. Run it with
 * {@code ./mvnw -pl sample-app -am spring-boot:run}: when no Redis answers at
 * {@code spring.data.redis.*}, it starts a bundled {@code redis-server} (see
 * {@link EmbeddedRedisLauncher}). With {@code -Pjedis} it runs on Jedis instead of
 * Lettuce.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

	/**
	 * Start the application.
	 * @param args the command line arguments
	 */
	public static void main(String[] args) {
		application().run(args);
	}

	/**
	 * Return the application, with the listener that starts a bundled
	 * {@code redis-server} when needed, ready to run.
	 * @return the application
	 */
	public static SpringApplication application() {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setMainApplicationClass(SampleApplication.class);
		application.addListeners(new EmbeddedRedisLauncher());
		return application;
	}

}
