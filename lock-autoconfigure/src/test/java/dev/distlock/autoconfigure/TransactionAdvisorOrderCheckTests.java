package dev.distlock.autoconfigure;

import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.interceptor.TransactionInterceptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TransactionAdvisorOrderCheck}: one warning at startup when the
 * transaction advisor would run outside distlock's, none with the default orders.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class TransactionAdvisorOrderCheckTests {

	private static final String WARNING = "Transaction advice is ordered at or before distlock's advisor";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port());

	@Test
	void transactionAdvisorOrderedBeforeDistLocksLogsOneWarningNamingBothOrders(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(EarlyTransactionsConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(WARNING)
				.contains("WARN")
				.contains("distlock's advisor (order 2147483547): bean '"
						+ "org.springframework.transaction.config.internalTransactionAdvisor' with order 0.")
				.contains("set distlock.order below the transaction advisor's");
		});
	}

	@Test
	void transactionAdvisorOrderedAtDistLocksOrderLogsTheWarning(CapturedOutput output) {
		this.contextRunner.withPropertyValues("distlock.order=100")
			.withUserConfiguration(TransactionsAtOrder100Configuration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce(WARNING)
					.contains("distlock's advisor (order 100)")
					.contains("' with order 100.");
			});
	}

	@Test
	void defaultOrdersLogNoWarning(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(DefaultTransactionsConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain(WARNING);
		});
	}

	@Test
	void contextWithoutSpringTransactionsHasNoCheck() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(TransactionInterceptor.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("distlockAdvisor")
				.doesNotHaveBean(TransactionAdvisorOrderCheck.class));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 0)
	static class EarlyTransactionsConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 100)
	static class TransactionsAtOrder100Configuration {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class DefaultTransactionsConfiguration {

	}

}
