package dev.distlock.sample;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.distlock.testsupport.Closer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * One running sample application on a random port, as a test starts it: its own context,
 * its own Redis connections and lock registry, talked to over HTTP like a separate
 * process.
 */
final class SampleInstance implements AutoCloseable {

	private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

	private final ConfigurableApplicationContext context;

	private final RestClient http;

	private SampleInstance(ConfigurableApplicationContext context) {
		this.context = context;
		HttpClient client = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(HTTP_TIMEOUT)
			.build();
		JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(client);
		requests.setReadTimeout(HTTP_TIMEOUT);
		this.http = RestClient.builder().baseUrl("http://127.0.0.1:" + port()).requestFactory(requests).build();
	}

	/**
	 * Start an instance against the Redis at the given port, without a bundled Redis.
	 * @param instanceId its {@code sample.instance-id}
	 * @param redisPort the port of the Redis on {@code 127.0.0.1}
	 * @param properties further {@code name=value} properties
	 * @return the running instance
	 */
	static SampleInstance start(String instanceId, int redisPort, String... properties) {
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--sample.instance-id=" + instanceId,
				"--sample.embedded-redis.enabled=false", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redisPort, "--spring.main.banner-mode=off"));
		for (String property : properties) {
			args.add("--" + property);
		}
		return new SampleInstance(SampleApplication.application().run(args.toArray(String[]::new)));
	}

	/**
	 * Start an instance with the given arguments, as {@code main} would.
	 * @param args the command line arguments
	 * @return the running instance
	 */
	static SampleInstance run(String... args) {
		return new SampleInstance(SampleApplication.application().run(args));
	}

	int port() {
		return ((WebServerApplicationContext) this.context).getWebServer().getPort();
	}

	RestClient http() {
		return this.http;
	}

	/**
	 * Send a request and return the answer whatever its status, its body read as a JSON
	 * object (the problem detail of an error), or {@code null} when it has none.
	 * @param method the request's method
	 * @param uri the request's path and query
	 * @return the answer
	 */
	ResponseEntity<Map<String, Object>> answer(HttpMethod method, String uri) {
		return this.http.method(method).uri(uri).retrieve().onStatus((status) -> true, (request, response) -> {
		}).toEntity(new ParameterizedTypeReference<>() {
		});
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	String property(String name) {
		return this.context.getEnvironment().getRequiredProperty(name);
	}

	@Override
	public void close() {
		this.context.close();
	}

	/**
	 * Close every instance that was started, then every other resource, keeping the first
	 * failure and suppressing the others.
	 * @param resources the instances and servers, possibly {@code null}
	 */
	static void closeAll(@Nullable AutoCloseable... resources) throws Exception {
		try (Closer closer = new Closer()) {
			for (int i = resources.length - 1; i >= 0; i--) {
				if (resources[i] != null) {
					closer.add(resources[i]);
				}
			}
		}
	}

}
