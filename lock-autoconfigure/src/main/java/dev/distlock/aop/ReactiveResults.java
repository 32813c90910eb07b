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

	static Object error(ResultKind kind, Throwable failure) {
		return (kind == ResultKind.MONO) ? Mono.error(failure) : Flux.error(failure);
	}

	/**
	 * Return a publisher that acquires the locks on subscription, then calls the method
	 * (with the innermost lease in {@link dev.distlock.LockContext}), subscribes to its
	 * result and releases the locks when it terminates or is cancelled. Each subscription
	 * acquires its own locks, released whenever the subscription ends, also while they
	 * are being acquired.
	 * @param kind {@code MONO} or {@code FLUX}
	 * @param acquire acquires the locks, returning {@code null} when they were not
	 * acquired and the call is skipped
	 * @param call runs the method and returns its publisher
	 * @param policy what to do about a lock lost meanwhile
	 * @param spec the method's spec
	 */
	static Object hold(ResultKind kind, Supplier<@Nullable CallLocks> acquire, Supplier<Publisher<?>> call,
			LostLockPolicy policy, LockSpec spec) {
		if (kind == ResultKind.MONO) {
			return Mono.defer(() -> {
				SubscriptionLocks locks = new SubscriptionLocks(spec);
				return Mono
					.usingWhen(acquisition(locks, acquire), (held) -> Mono.from(held.run(call)),
							(held) -> release(held, policy, spec, null),
							(held, error) -> release(held, policy, spec, error), ReactiveResults::releaseOnCancel)
					.doFinally((signal) -> locks.end());
			});
		}
		return Flux.defer(() -> {
			SubscriptionLocks locks = new SubscriptionLocks(spec);
			return Flux
				.usingWhen(acquisition(locks, acquire), (held) -> Flux.from(held.run(call)),
						(held) -> release(held, policy, spec, null),
						(held, error) -> release(held, policy, spec, error), ReactiveResults::releaseOnCancel)
				.doFinally((signal) -> locks.end());
		});
	}

	/**
	 * Acquire the subscription's locks on the bounded elastic scheduler; empty when they
	 * were not acquired.
	 */
	private static Mono<SubscriptionLocks> acquisition(SubscriptionLocks locks, Supplier<@Nullable CallLocks> acquire) {
		return Mono.fromSupplier(() -> locks.acquire(acquire) ? locks : null).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Release the locks after the result completed or failed. A loss or a failed release
	 * fails a completed result as the policy says; a failed result keeps its error, which
	 * carries them as suppressed.
	 */
	private static Mono<Void> release(SubscriptionLocks held, LostLockPolicy policy, LockSpec spec,
			@Nullable Throwable error) {
		return Mono.defer(() -> {
			Throwable thrown = held.release().thrown(policy, spec, error);
			return (thrown != null && thrown != error) ? Mono.error(thrown) : Mono.empty();
		});
	}

	private static Mono<Void> releaseOnCancel(SubscriptionLocks held) {
		return Mono.fromRunnable(held::end);
	}

}
