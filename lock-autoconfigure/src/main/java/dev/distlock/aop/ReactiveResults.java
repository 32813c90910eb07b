package dev.distlock.aop;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Holds locks for Reactor results from subscription until they complete, fail or are
 * cancelled. Acquisition may wait, so it runs on the bounded elastic scheduler. Loaded
 * only when Reactor is on the classpath.
 */
final class ReactiveResults {

	private ReactiveResults() {
	}

	static boolean isMono(Class<?> type) {
		return Mono.class.isAssignableFrom(type);
	}

	static boolean isFlux(Class<?> type) {
		return Flux.class.isAssignableFrom(type);
	}

	static Object empty(ResultKind kind) {
		return (kind == ResultKind.MONO) ? Mono.empty() : Flux.empty();
	}

	/**
	 * Return a publisher that acquires the locks on subscription, then subscribes to the
	 * method's result and releases the locks when it terminates or is cancelled.
	 * @param kind {@code MONO} or {@code FLUX}
	 * @param acquire acquires the locks, returning {@code null} when they were not
	 * acquired
	 * @param skipped what to emit when the locks were not acquired and the call is
	 * skipped
	 * @param call runs the method and returns its publisher
	 * @param policy what to do about a lock lost meanwhile
	 * @param spec the method's spec
	 */
	static Object hold(ResultKind kind, Supplier<@Nullable CallLocks> acquire, Supplier<Publisher<?>> call,
			LostLockPolicy policy, LockSpec spec) {
		Mono<CallLocks> locks = Mono.fromSupplier(acquire).subscribeOn(Schedulers.boundedElastic());
		if (kind == ResultKind.MONO) {
			return Mono.usingWhen(locks, (held) -> Mono.from(call.get()), (held) -> release(held, policy, spec),
					(held, error) -> releaseAfterError(held), ReactiveResults::releaseAfterError);
		}
		return Flux.usingWhen(locks, (held) -> Flux.from(call.get()), (held) -> release(held, policy, spec),
				(held, error) -> releaseAfterError(held), ReactiveResults::releaseAfterError);
	}

	private static Mono<Void> release(CallLocks held, LostLockPolicy policy, LockSpec spec) {
		return Mono.defer(() -> {
			Throwable failure = held.release().thrown(policy, spec, null);
			return (failure != null) ? Mono.error(failure) : Mono.empty();
		});
	}

	private static Mono<Void> releaseAfterError(CallLocks held) {
		return Mono.fromRunnable(held::release);
	}

}
