package dev.distlock.redis;

/**
 * Recognizes Redis' error replies in the exceptions of any driver, which keep the reply's
 * text: it starts with the error's code, such as {@code NOSCRIPT} or {@code NOPERM}.
 */
final class ErrorReplies {

	private ErrorReplies() {
	}

	/**
	 * Return whether Redis answered that it does not have the script cached.
	 */
	static boolean isNoScript(Throwable ex) {
		return hasCode(ex, "NOSCRIPT");
	}

	/**
	 * Return whether Redis refused a command: the user may not run it ({@code NOPERM}),
	 * or the server does not know it or does not allow it ({@code ERR}).
	 */
	static boolean isRefusal(Throwable ex) {
		return hasCode(ex, "NOPERM") || hasCode(ex, "ERR");
	}

	private static boolean hasCode(Throwable ex, String code) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			String message = cause.getMessage();
			if (message != null && message.startsWith(code + " ")) {
				return true;
			}
		}
		return false;
	}

}
