package dev.distlock.redis.connection;

import org.jspecify.annotations.Nullable;

/**
 * Recognizes Redis' error replies in the exceptions of any driver, which keep the reply's
 * text: it starts with the error's code, such as {@code NOSCRIPT} or {@code NOPERM}.
 *
 * @since 0.1.0
 */
public final class ErrorReplies {

	private ErrorReplies() {
	}

	/**
	 * Return whether Redis answered that it does not have the script cached.
	 */
	static boolean isNoScript(Throwable ex) {
		return reply(ex, "NOSCRIPT") != null;
	}

	/**
	 * Return Redis' reply refusing a command: the user may not run it ({@code NOPERM}),
	 * or the server does not know it or does not allow it ({@code ERR}).
	 * @param ex a command's failure, as the driver reported it
	 * @return the reply, such as {@code NOPERM this user has no permissions ...}, or
	 * {@code null} if the failure is no refusal
	 */
	public static @Nullable String refusal(Throwable ex) {
		String reply = reply(ex, "NOPERM");
		return (reply != null) ? reply : reply(ex, "ERR");
	}

	private static @Nullable String reply(Throwable ex, String code) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			String message = cause.getMessage();
			if (message != null && message.startsWith(code + " ")) {
				return message;
			}
		}
		return null;
	}

}
