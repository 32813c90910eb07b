package dev.distlock.aop;

import dev.distlock.DistributedLock;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup warnings of {@link LockAnnotationValidator} for annotated methods that a proxy
 * cannot intercept.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
class LockAnnotationValidatorTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

	@Test
	void privateAndFinalAnnotatedMethodsLogOneWarningEach(CapturedOutput output) {
		this.contextRunner.withBean("jobs", UninterceptableJobs.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output)
				.containsOnlyOnce("@DistributedLock on private method UninterceptableJobs.cleanUp"
						+ " of bean 'jobs' has no effect")
				.containsOnlyOnce(
						"@DistributedLock on final method UninterceptableJobs.report of bean 'jobs' has no effect")
				.doesNotContain("UninterceptableJobs.run of bean");
		});
	}

	static class UninterceptableJobs {

		@DistributedLock
		public void run() {
			cleanUp();
		}

		@DistributedLock
		private void cleanUp() {
		}

		@DistributedLock
		public final void report() {
		}

	}

}
