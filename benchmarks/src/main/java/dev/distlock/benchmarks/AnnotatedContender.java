package dev.distlock.benchmarks;

import java.time.Duration;

import dev.distlock.DistributedLock;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code @DistributedLock} method on a bean of a minimal Spring Boot application
 * (Spring Boot's Redis auto-configuration and distlock's), doing the same work as the
 * other contenders.
 *
 * @since 0.1.0
 */
public final class AnnotatedContender implements Contender {

	private final ConfigurableApplicationContext context;

	private final LockedWork work;

	/**
	 * Start the application.
	 * @param redisUri where Redis listens
	 * @param leaseTime the lease in watchdog mode
	 */
	public AnnotatedContender(String redisUri, Duration leaseTime) {
		this.context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.main.banner-mode=off", "spring.data.redis.url=" + redisUri,
					"spring.data.redis.timeout=10s", "distlock.key-prefix=anno:",
					"distlock.lease-time=" + leaseTime.toMillis() + "ms", "logging.level.root=warn")
			.run();
		this.work = this.context.getBean(LockedWork.class);
	}

	@Override
	public String name() {
		return "distlock @DistributedLock";
	}

	@Override
	public void locked(String name, Runnable work) {
		this.work.run(name, work);
	}

	@Override
	public boolean reentrant() {
		return true;
	}

	@Override
	public String redisKey(String name) {
		return "anno:bench:" + name;
	}

	@Override
	public void close() {
		this.context.close();
	}

	/**
	 * The bean whose method is locked.
	 */
	public static class LockedWork {

		/**
		 * Run the work holding the lock {@code bench:<name>}.
		 * @param name the lock's key value
		 * @param work what to run
		 */
		@DistributedLock(name = "bench", key = "#name", waitTime = "1h")
		public void run(String name, Runnable work) {
			work.run();
		}

	}

	/**
	 * The application: Spring Boot's Redis auto-configuration, distlock's and the bean.
	 */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
			DistLockInterceptionAutoConfiguration.class })
	static class Application {

		@Bean
		LockedWork lockedWork() {
			return new LockedWork();
		}

	}

}
