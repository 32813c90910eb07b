package dev.distlock.autoconfigure;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LeaderOnly;
import dev.distlock.LockRegistry;
import dev.distlock.aop.InvalidLockAnnotationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistLockDisabledAutoConfiguration}: with
 * {@code distlock.enabled=false} a {@code @LeaderOnly} method is skipped on every call,
 * never run on every instance, and the startup names it.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
class DistLockDisabledAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class,
						DistLockLeadershipAutoConfiguration.class, DistLockDisabledAutoConfiguration.class))
		.withPropertyValues("distlock.enabled=false", "distlock.leader.names=report");

	@Test
	void leaderOnlyMethodsAreSkippedOnEveryCallAndTheStartupNamesThem(CapturedOutput output) {
		this.contextRunner.withBean("reportJob", ReportJob.class).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class);
			ReportJob job = context.getBean(ReportJob.class);
			assertThat(job.summary()).isEmpty();
			assertThat(job.calls()).isZero();
			assertThat(output).contains("distlock.enabled=false: this instance leads no leadership, so every call of"
					+ " these @LeaderOnly methods is skipped: [ReportJob.summary() of bean 'reportJob']. Remove distlock.enabled=false to run them on the"
					+ " leader only.");
		});
	}

	@Test
	void leaderOnlyMethodsAreCheckedAsWhenEnabled() {
		this.contextRunner.withBean("auditJob", AuditJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("'audit' is not a leadership this instance campaigns for");
		});
	}

	@Test
	void applicationWithoutLeaderOnlyMethodsIsToldNothing(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("distlock.enabled=false");
		});
	}

	/**
	 * A job that only the leader of {@code report} runs, counting the calls that ran.
	 */
	static class ReportJob {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@LeaderOnly("report")
		public Optional<String> summary() {
			this.calls.incrementAndGet();
			return Optional.of("summary");
		}

	}

	static class AuditJob {

		@LeaderOnly("audit")
		public void run() {
		}

	}

}
