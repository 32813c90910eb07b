package dev.distlock.autoconfigure;

import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an application with several {@code RedisConnectionFactory} beans and no way to
 * tell which one distlock's locks use: the candidates, and the qualifier or
 * {@code @Primary} that chooses one.
 *
 * @since 0.1.0
 */
class NoUniqueLockConnectionFactoryFailureAnalyzer
		extends AbstractFailureAnalyzer<NoUniqueLockConnectionFactoryException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, NoUniqueLockConnectionFactoryException cause) {
		String description = cause.getBeanNames()
			.stream()
			.map((name) -> "- '" + name + "'")
			.collect(Collectors.joining(System.lineSeparator(),
					"distlock needs one RedisConnectionFactory for its locks, but found " + cause.getBeanNames().size()
							+ " and none is marked for distlock:" + System.lineSeparator(),
					""));
		String action = "Annotate the @Bean of the connection factory that distlock should lock on with"
				+ " @DistLockConnectionFactory (dev.distlock.autoconfigure), or mark one of them @Primary"
				+ " to use it for locks and everything else.";
		return new FailureAnalysis(description, action, cause);
	}

}
