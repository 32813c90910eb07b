package dev.distlock.autoconfigure;

import java.util.List;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Thrown at startup when the application has several {@link RedisConnectionFactory}
 * beans, none of them annotated with {@link DistLockConnectionFactory} or marked
 * {@code @Primary}, so that distlock cannot tell which Redis its locks belong in.
 * Reported by a failure analyzer.
 *
 * @since 0.1.0
 */
public class NoUniqueLockConnectionFactoryException extends IllegalStateException {

	private final List<String> beanNames;

	/**
	 * Create a new exception.
	 * @param beanNames the names of the connection factory beans, at least two
	 */
	public NoUniqueLockConnectionFactoryException(List<String> beanNames) {
		super("distlock needs one RedisConnectionFactory for its locks, but found " + beanNames.size() + ": "
				+ String.join(", ", beanNames) + "; annotate the one for locks with @DistLockConnectionFactory");
		this.beanNames = List.copyOf(beanNames);
	}

	/**
	 * Return the names of the connection factory beans distlock could not choose from.
	 * @return the bean names
	 */
	public List<String> getBeanNames() {
		return this.beanNames;
	}

}
