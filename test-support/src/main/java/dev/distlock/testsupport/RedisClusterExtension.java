package dev.distlock.testsupport;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit Jupiter extension that runs one {@link RedisCluster} for all tests of a class.
 * <p>
 * Register it on a static field: <pre class="code">
 * &#64;RegisterExtension
 * static final RedisClusterExtension cluster = new RedisClusterExtension();
 * </pre> Tests empty it themselves where they need to, with a {@code FLUSHALL} sent to
 * every primary.
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {

	private @Nullable RedisCluster cluster;

	/**
	 * Returns the cluster of the current test class.
	 * @return the cluster
	 * @throws IllegalStateException outside the test class's lifecycle
	 */
	public RedisCluster cluster() {
		if (this.cluster == null) {
			throw new IllegalStateException("No Redis Cluster: register RedisClusterExtension on a static field");
		}
		return this.cluster;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.cluster = RedisCluster.start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.cluster != null) {
			this.cluster.close();
			this.cluster = null;
		}
	}

}
