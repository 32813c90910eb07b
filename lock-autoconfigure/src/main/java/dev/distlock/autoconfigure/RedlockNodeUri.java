package dev.distlock.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Checks the URI of a node of {@code distlock.redlock.nodes}: one Redis primary,
 * {@code redis://[user:password@]host[:port][/database]}, or {@code rediss://} for TLS.
 */
final class RedlockNodeUri {

	private static final String FORM = "redis://[user:password@]host[:port][/database] (rediss:// for TLS,"
			+ " user and password URL-encoded)";

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

	private static String invalid(String uri, String reason) {
		return "'" + uri + "' is not the URI of a Redis primary: " + reason + "; use " + FORM;
	}

}
