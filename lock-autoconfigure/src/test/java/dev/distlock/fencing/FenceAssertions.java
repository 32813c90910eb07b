package dev.distlock.fencing;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Assertions on what a {@link Fence} throws.
 */
final class FenceAssertions {

	private FenceAssertions() {
	}

	/**
	 * Assert that a call throws the {@link StaleFencingTokenException} of a refused
	 * token.
	 * @param call the call
	 * @param resource the resource whose fence refuses the token
	 * @param fencingToken the refused token
	 * @param highestToken the higher token recorded for the resource
	 */
	static void assertRefused(ThrowingCallable call, String resource, long fencingToken, long highestToken) {
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(call)
			.withMessage("Fencing token " + fencingToken + " for resource '" + resource + "' is stale: token "
					+ highestToken
					+ " was recorded already, so the lock this token belongs to was lost and a later holder has written")
			.returns(resource, StaleFencingTokenException::getResource)
			.returns(fencingToken, StaleFencingTokenException::getFencingToken)
			.returns(highestToken, StaleFencingTokenException::getHighestToken);
	}

}
