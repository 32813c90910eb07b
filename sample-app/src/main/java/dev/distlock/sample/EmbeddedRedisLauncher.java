package dev.distlock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisServer;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a bundled {@code redis-server} when {@code sample.embedded-redis.enabled} is
 * true and nothing answers at {@code spring.data.redis.host}/{@code port}, points
 * {@code spring.data.redis.*} at it, and stops it after the application context closed.
 * For trying the sample on a machine without Redis; never part of the starter.
 *
 * <p>
 * The bundled server listens on {@code 127.0.0.1} at the configured port ({@code 6379}
 * unless set otherwise), so that a second instance started with the same settings finds
 * it answering there and uses it. Only when that port cannot be bound does it take a free
 * port, which it logs.
 */
class EmbeddedRedisLauncher implements SmartApplicationListener {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisLauncher.class);

	private static final int CONNECT_TIMEOUT_MILLIS = 500;

	private @Nullable RedisServer server;

	private int port;

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationFailedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			startIfNeeded(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared && this.server != null) {
			// Destroyed last, after the beans that use the connection.
			((DefaultSingletonBeanRegistry) prepared.getApplicationContext().getBeanFactory())
				.registerDisposableBean("embeddedRedisServer", this::stop);
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void startIfNeeded(ConfigurableEnvironment environment) {
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, false)
				|| environment.containsProperty("spring.data.redis.url")
				|| environment.containsProperty("spring.data.redis.sentinel.master")
				|| environment.containsProperty("spring.data.redis.cluster.nodes")) {
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (answers(host, port)) {
			return;
		}
		int bundledPort = canBind(port) ? port : freePort();
		try {
			RedisServer started = new RedisServer(bundledPort);
			started.start();
			this.server = started;
			this.port = bundledPort;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the bundled redis-server", ex);
		}
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", bundledPort)));
		String further = (bundledPort != port) ? "; port " + port
				+ " cannot be bound, so start further instances with --spring.data.redis.port=" + bundledPort
				: ", where further instances find it";
		logger.info("No Redis answered at " + host + ":" + port + "; started a bundled redis-server at 127.0.0.1:"
				+ bundledPort + further + " (sample.embedded-redis.enabled=false turns this off)");
	}

	private synchronized void stop() {
		// Called once the context closed (its beans are destroyed first) or failed.
		RedisServer running = this.server;
		this.server = null;
		if (running != null) {
			try {
				running.stop();
				logger.info("Stopped the bundled redis-server at 127.0.0.1:" + this.port);
			}
			catch (IOException ex) {
				logger.warn("Could not stop the bundled redis-server", ex);
			}
		}
	}

	private static boolean answers(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean canBind(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
