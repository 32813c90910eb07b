package dev.distlock.testsupport;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit Jupiter extension that runs one {@link RedisServer} for all tests of a class and
 * hands each test a running, resumed and empty server.
 * <p>
 * Register it on a static field: <pre class="code">
 * &#64;RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 * </pre> A server that a previous test killed or stopped is restarted on the same port; a
 * paused one is resumed.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private final String[] extraArgs;

	private @Nullable RedisServer server;

	private @Nullable String ownerId;

	/**
	 * Creates an extension whose server gets the given extra {@code redis-server}
	 * arguments.
	 * @param extraArgs further arguments, such as {@code "--requirepass", "secret"}
	 */
	public RedisServerExtension(String... extraArgs) {
		this.extraArgs = extraArgs.clone();
	}

	/**
	 * Returns the server of the current test class.
	 * @return the server
	 * @throws IllegalStateException outside the test class's lifecycle
	 */
	public RedisServer server() {
		if (this.server == null) {
			throw new IllegalStateException("No Redis server: register RedisServerExtension on a static field");
		}
		return this.server;
	}

	/**
	 * Deletes every key of the server.
	 */
	public void flushAll() {
		server().flushAll();
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		if (this.server == null) {
			this.server = RedisServer.start(this.extraArgs);
			this.ownerId = context.getUniqueId();
		}
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		RedisServer current = server();
		if (current.isRunning()) {
			current.resume();
		}
		else {
			current.restart();
		}
		current.flushAll();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.server != null && context.getUniqueId().equals(this.ownerId)) {
			this.server.close();
			this.server = null;
			this.ownerId = null;
		}
	}

}
