package dev.distlock.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Checks the URI of a node of {@code distlock.redlock.nodes}: one Redis primary,
 * {@code redis://[user:password@]host[:port][/database]}, or {@code rediss://} for TLS;
 * and names the node by its address.
 */
final class RedlockNodeUri {

	private static final String FORM = "redis://[user:password@]host[:port][/database] (rediss:// for TLS,"
			+ " user and password URL-encoded)";

	private static final int DEFAULT_PORT = 6379;

	private RedlockNodeUri() {
	}

	/**
	 * Check a node's URI.
	 * @param uri the URI
	 * @throws IllegalArgumentException if it is not the URI of one Redis primary
	 */
	static void check(String uri) {
		URI parsed;
		try {
			parsed = new URI(uri);
		}
		catch (URISyntaxException ex) {
			throw new IllegalArgumentException(invalid(uri, ex.getReason()));
		}
		String scheme = parsed.getScheme();
		if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
			throw new IllegalArgumentException(invalid(uri, "the scheme must be redis or rediss"));
		}
		if (parsed.getHost() == null) {
			throw new IllegalArgumentException(invalid(uri, "it names no host"));
		}
		String path = parsed.getPath();
		if (path != null && !path.isEmpty() && !path.matches("/\\d*")) {
			throw new IllegalArgumentException(invalid(uri, "the path must be a database number"));
		}
	}

	/**
	 * Return a node's address, as meters and the endpoint name it: {@code host:port},
	 * without the user, password or database.
	 * @param uri the URI, as {@link #check} accepts it
	 * @return the address
	 */
	static String address(String uri) {
		URI parsed = URI.create(uri);
		return parsed.getHost() + ":" + ((parsed.getPort() != -1) ? parsed.getPort() : DEFAULT_PORT);
	}

	private static String invalid(String uri, String reason) {
		return "'" + uri + "' is not the URI of a Redis primary: " + reason + "; use " + FORM;
	}

}
