package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;

/**
 * How a locked method delivers its result, which decides how long the lock is held and
 * what a skipped call returns.
 */
enum ResultKind {

	/** Returns when done: the lock is held by the calling thread until then. */
	SYNCHRONOUS,

	/** Returns a {@code CompletionStage}: the lock is held until it completes. */
	COMPLETION_STAGE,

	/**
	 * Returns a type that Spring's {@code ReactiveAdapterRegistry} adapts to a Reactive
	 * Streams publisher, such as a Reactor {@code Mono} or {@code Flux}, or an RxJava or
	 * Mutiny type: the lock is held from subscription to termination.
	 */
	REACTIVE,

	/**
	 * A Kotlin {@code suspend} function, which Spring's AOP runs as a {@code Mono} (a
	 * {@code Flux} for a {@code Flow} result) and awaits: the lock is held as for a
	 * reactive result, until the function completes.
	 */
	SUSPENDING;

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ResultKind.class.getClassLoader());

	/**
	 * Return the kind of result the given method delivers.
	 * @param method the method
	 * @return the result kind
	 */
	static ResultKind of(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			return SUSPENDING;
		}
		Class<?> type = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(type)) {
			return COMPLETION_STAGE;
		}
		if (REACTOR_PRESENT && ReactiveResults.isReactive(type)) {
			return REACTIVE;
		}
		return SYNCHRONOUS;
	}

	/**
	 * Return what a call skipped for want of its lock returns. A reactive result or
	 * suspend function is not skipped at the call but per subscription, which then
	 * completes empty.
	 * @param method the method
	 * @return nothing for {@code void}, an empty {@code Optional}, a completed future of
	 * {@code null}, otherwise {@code null}
	 * @throws IllegalStateException for a reactive result or suspend function
	 */
	@Nullable Object skippedResult(Method method) {
		return switch (this) {
			case COMPLETION_STAGE -> CompletableFuture.completedFuture(null);
			case REACTIVE, SUSPENDING ->
				throw new IllegalStateException("A reactive result is skipped per subscription");
			case SYNCHRONOUS -> (method.getReturnType() == Optional.class) ? Optional.empty() : null;
		};
	}

	/**
	 * Return what a call that failed before its method could run returns, so that the
	 * failure reaches the caller as the method's own failures do.
	 * @param method the method
	 * @param failure why the call failed
	 * @return a future completed exceptionally with the failure, or a reactive result of
	 * the method's type (for a suspend function, the publisher its proxy awaits) that
	 * signals it
	 * @throws RuntimeException the failure itself, for a synchronous method
	 */
	Object failedResult(Method method, RuntimeException failure) {
		return switch (this) {
			case COMPLETION_STAGE -> CompletableFuture.failedFuture(failure);
			case REACTIVE, SUSPENDING -> ReactiveResults.error(method, failure);
			case SYNCHRONOUS -> throw failure;
		};
	}

}
