package dev.distlock.aop;

import java.lang.reflect.Method;

import dev.distlock.context.LockContextElement;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.MethodParameter;
import org.springframework.core.Nullness;

/**
 * Kotlin {@code suspend} functions as Spring's AOP runs them: with
 * kotlinx-coroutines-reactor present, the join point of a suspend function returns a
 * {@code Mono} (a {@code Flux} for a {@code Flow} result) that runs the function in a
 * coroutine of its caller's context, and the proxy awaits it. So a suspend function is
 * locked as a reactive result is, and the function's coroutine gets the subscription's
 * leases through its context. Loaded only for suspend functions.
 */
final class SuspendingFunctions {

	private static final String FLOW = "kotlinx.coroutines.flow.Flow";

	private SuspendingFunctions() {
	}

	/**
	 * Return the type of publisher the join point of a suspend function returns, as
	 * Spring's proxies await it.
	 * @param method the suspend function
	 * @return {@code Flux} for a function returning a {@code Flow}, else {@code Mono}
	 */
	static Class<?> publisherType(Method method) {
		return FLOW.equals(resultType(method).getName()) ? Flux.class : Mono.class;
	}

	/**
	 * Return the declared result type of a suspend function.
	 * @param method the suspend function
	 * @return the type, {@code void} for {@code Unit}
	 */
	static Class<?> resultType(Method method) {
		return new MethodParameter(method, -1).getParameterType();
	}

	/**
	 * Return whether a suspend function may return what a call skipped for want of its
	 * lock returns, {@code null}: it returns {@code Unit}, a {@code Flow} (which is then
	 * empty) or a nullable type. Without Kotlin reflection, nullability is unknown and
	 * allowed.
	 * @param method the suspend function
	 */
	static boolean returnsNullWhenSkipped(Method method) {
		Class<?> type = resultType(method);
		return type == void.class || FLOW.equals(type.getName())
				|| Nullness.forMethodReturnType(method) != Nullness.NON_NULL;
	}

	/**
	 * Return the arguments of a call to a suspend function with the continuation, the
	 * last, replaced by one whose coroutine context also carries the leases the current
	 * thread runs under: Spring runs the function in a coroutine of that context.
	 * @param arguments the call's arguments
	 * @return a copy of the arguments
	 */
	static Object[] inLockContext(Object[] arguments) {
		Object[] copy = arguments.clone();
		int last = copy.length - 1;
		copy[last] = new ContinuationInLockContext<>((Continuation<?>) copy[last]);
		return copy;
	}

	/**
	 * The caller's continuation, with a context that adds a {@link LockContextElement}.
	 * Spring reads only its context; anything that resumes it resumes the caller.
	 */
	private static final class ContinuationInLockContext<T> implements Continuation<T> {

		private final Continuation<T> caller;

		private final CoroutineContext context;

		ContinuationInLockContext(Continuation<T> caller) {
			this.caller = caller;
			this.context = caller.getContext().plus(new LockContextElement());
		}

		@Override
		public CoroutineContext getContext() {
			return this.context;
		}

		@Override
		public void resumeWith(Object result) {
			this.caller.resumeWith(result);
		}

	}

}
