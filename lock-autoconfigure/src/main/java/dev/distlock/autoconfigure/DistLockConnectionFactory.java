package dev.distlock.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.distlock.LockRegistry;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Qualifier annotation for the {@link RedisConnectionFactory} that distlock's
 * {@link LockRegistry} uses when the application has several, such as a dedicated Redis
 * for locks beside the one of its cache.
 *
 * <p>
 * Put it beside the {@code @Bean} of that factory. Without it, distlock uses the
 * application's only connection factory or its {@code @Primary} one, as Spring Boot's own
 * auto-configurations do; with several factories and neither, the startup fails and says
 * which to annotate. Spring Boot's {@code @FlywayDataSource} and
 * {@code @LiquibaseDataSource} follow the same convention for a {@code DataSource}.
 *
 * @since 0.1.0
 * @see DistLockAutoConfiguration
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface DistLockConnectionFactory {

}
