package dev.distlock.autoconfigure;

import dev.distlock.fencing.JdbcFence;
import dev.distlock.fencing.RedisFence;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.util.ClassUtils;

/**
 * Reports a {@link JdbcFence} or {@link RedisFence} that a bean asks for but that
 * distlock could not auto-configure, saying what the fence needs and which of it is
 * missing, ahead of Spring Boot's general report of a missing bean.
 *
 * @since 0.1.0
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class MissingFenceFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException> {

	private static final String SPRING_BOOT_JDBC = "org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer";

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
		Class<?> type = cause.getBeanType();
		if (type == JdbcFence.class) {
			return springBootJdbcPresent() ? new FailureAnalysis(
					"A bean needs distlock's JdbcFence, which is auto-configured on the application's single"
							+ " DataSource (the only DataSource bean, or the @Primary one), and there is none or"
							+ " several of them, or distlock.enabled is false.",
					"Make one DataSource bean @Primary, or define a JdbcFence bean of your own:"
							+ " new JdbcFence(dataSource).",
					cause)
					: new FailureAnalysis(
							"A bean needs distlock's JdbcFence, which is auto-configured only with Spring Boot's JDBC"
									+ " support (spring-boot-jdbc) on the class path, and it is not there: spring-jdbc"
									+ " alone is not enough.",
							"Add spring-boot-starter-jdbc, or define a JdbcFence bean of your own:"
									+ " new JdbcFence(dataSource).",
							cause);
		}
		if (type == RedisFence.class) {
			return new FailureAnalysis(
					"A bean needs distlock's RedisFence, which is auto-configured on the application's single"
							+ " StringRedisTemplate, and there is none or several of them, or distlock.enabled is"
							+ " false.",
					"Make one StringRedisTemplate bean @Primary, or define a RedisFence bean of your own:"
							+ " new RedisFence(stringRedisTemplate, \"lock:\").",
					cause);
		}
		return null;
	}

	/**
	 * Return whether the classes the JDBC fence's auto-configuration needs are visible to
	 * the application's class loader, the thread's context class loader.
	 */
	private static boolean springBootJdbcPresent() {
		return ClassUtils.isPresent("org.springframework.jdbc.core.JdbcTemplate", null)
				&& ClassUtils.isPresent(SPRING_BOOT_JDBC, null);
	}

}
