package dev.distlock.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports {@code @DistributedLock}, {@code @DistributedConcurrencyLimit} and
 * {@code @LeaderOnly} methods that have no {@code LockRegistry} bean to run them with:
 * the first few of them, and the ways to provide a registry or to run them unlocked, and
 * on every instance, on purpose.
 *
 * @since 0.1.0
 */
class MissingLockRegistryFailureAnalyzer extends AbstractFailureAnalyzer<MissingLockRegistryException> {

	private static final int LISTED_METHODS = 5;

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, MissingLockRegistryException cause) {
		String eol = System.lineSeparator();
		List<String> methods = cause.getMethods();
		String unlisted = (methods.size() > LISTED_METHODS) ? eol + "and " + (methods.size() - LISTED_METHODS) + " more"
				: "";
		String description = methods.stream()
			.limit(LISTED_METHODS)
			.map((method) -> "- " + method)
			.collect(Collectors.joining(eol,
					"Methods are annotated with @DistributedLock, @DistributedConcurrencyLimit or @LeaderOnly, but no"
							+ " LockRegistry bean exists to run them:" + eol,
					unlisted));
		String action = "Add spring-boot-starter-data-redis (on Lettuce or Jedis), on whose connection factory "
				+ "distlock creates its LockRegistry, or define a RedisConnectionFactory or a LockRegistry bean of your "
				+ "own. To run these methods unlocked, set distlock.enabled=false, which also skips every call of the"
				+ " @LeaderOnly methods.";
		return new FailureAnalysis(description, action, cause);
	}

}
