package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.LockLostException;
import dev.distlock.context.LockContextThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

/**
 * Holds locks for reactive results from subscription until they complete, fail or are
 * cancelled. A result of any type Spring's {@link ReactiveAdapterRegistry} adapts
 * (Reactor {@code Mono} and {@code Flux}, RxJava, Mutiny, ...) is turned into a Reactive
 * Streams publisher, locked on Reactor and turned back into the method's type.
 * Acquisition may wait, so it runs on the bounded elastic scheduler. A lock found lost
 * while the result runs cancels the method's publisher and fails the result with
 * {@link LockLostException}, unless the policy lets the work finish. The method's
 * publisher carries its subscription's leases in its Reactor context, for
 * {@link LockContext} on other threads. A Kotlin {@code suspend} function is held the
 * same way, as the publisher Spring's AOP runs it as. Loaded only when Reactor is on the
 * classpath.
 */
final class ReactiveResults {

	private ReactiveResults() {
	}

	/**
	 * Return whether results of the given type are adapted to a publisher.
	 * @param type the method's return type
	 */
	static boolean isReactive(Class<?> type) {
		return ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
	}

	/**
	 * Return a result of the method's type that signals the given failure to every
	 * subscriber.
	 * @param method the method
	 * @param failure the failure
	 */
	static Object error(Method method, Throwable failure) {
		return adapter(method).fromPublisher(Mono.error(failure));
	}

	/**
	 * Return a result of the method's type that acquires the locks on subscription, then
	 * calls the method (with the innermost lease in {@link LockContext}, on that thread
	 * and in the result's Reactor context), subscribes to its result and releases the
	 * locks when it terminates or is cancelled. Each subscription acquires its own locks,
	 * released whenever the subscription ends, also while they are being acquired. A
	 * single-valued result delivers its value once the locks were released. A lock found
	 * lost stops the subscription as the policy says.
	 * @param acquire acquires the locks, returning {@code null} when they were not
	 * acquired and the call is skipped
	 * @param call runs the method and returns its result
	 * @param policy what to do about a lock lost meanwhile
	 * @param spec the method's spec
	 */
	static Object hold(Supplier<@Nullable CallLocks> acquire, Supplier<@Nullable Object> call, LostLockPolicy policy,
			LockSpec spec) {
		ReactiveAdapter adapter = adapter(spec.method());
		Flux<?> locked = Flux.defer(() -> {
			SubscriptionLocks locks = new SubscriptionLocks(spec);
			return Flux
				.usingWhen(acquisition(locks, acquire),
						(held) -> stoppedOnLoss(held.run(() -> withLockContext(adapter.toPublisher(call.get()))), held,
								policy),
						(held) -> release(held, policy, spec, null),
						(held, error) -> release(held, policy, spec, error), ReactiveResults::releaseOnCancel)
				.doFinally((signal) -> locks.end());
		});
		return fromFlux(adapter, locked);
	}

	/**
	 * Return a result of the method's type (for a suspend function, the publisher its
	 * proxy awaits) that, on each subscription, calls the method and relays its result
	 * when the condition holds, and completes empty otherwise.
	 * @param method the method
	 * @param condition whether to call the method, asked on each subscription
	 * @param call runs the method and returns its result
	 */
	static Object onlyIf(Method method, BooleanSupplier condition, Supplier<@Nullable Object> call) {
		ReactiveAdapter adapter = adapter(method);
		return fromFlux(adapter,
				Flux.defer(() -> condition.getAsBoolean() ? Flux.from(adapter.toPublisher(call.get())) : Flux.empty()));
	}

	/**
	 * Turn a flux back into the type of the adapter, single-valued ones from its only
	 * value, if any.
	 */
	private static Object fromFlux(ReactiveAdapter adapter, Flux<?> flux) {
		return adapter.fromPublisher(adapter.isMultiValue() ? flux : flux.singleOrEmpty());
	}

	/**
	 * Return the adapter of the method's result: of its return type or, for a suspend
	 * function, of the publisher Spring's AOP runs it as.
	 */
	private static ReactiveAdapter adapter(Method method) {
		Class<?> type = KotlinDetector.isSuspendingFunction(method) ? SuspendingFunctions.publisherType(method)
				: method.getReturnType();
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
		if (adapter == null) {
			throw new IllegalStateException("No reactive adapter for the return type of " + method);
		}
		return adapter;
	}

	/**
	 * Return the method's publisher with the leases the current thread runs under in its
	 * Reactor context, where the context-propagation library finds them to restore
	 * {@link LockContext} on the threads that run its operators.
	 */
	private static Publisher<?> withLockContext(Publisher<?> result) {
		return Flux.from(result).contextWrite(Context.of(LockContextThreadLocalAccessor.KEY, LockContext.leases()));
	}

	/**
	 * Acquire the subscription's locks on the bounded elastic scheduler; empty when they
	 * were not acquired.
	 */
	private static Mono<SubscriptionLocks> acquisition(SubscriptionLocks locks, Supplier<@Nullable CallLocks> acquire) {
		return Mono.fromSupplier(() -> locks.acquire(acquire) ? locks : null).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Return the method's publisher, cancelled when one of the subscription's locks is
	 * found lost and followed then by a {@link LockLostException}, unless the policy lets
	 * the work finish. The loss is told on the engine's thread: the cancellation, the
	 * error and the release that follows it run on the bounded elastic scheduler instead.
	 */
	private static Publisher<?> stoppedOnLoss(Publisher<?> result, SubscriptionLocks held, LostLockPolicy policy) {
		if (!policy.stopsWork()) {
			return result;
		}
		AtomicReference<@Nullable LockLostException> lost = new AtomicReference<>();
		Sinks.Empty<Void> loss = Sinks.empty();
		held.onLoss((found) -> {
			lost.compareAndSet(null, found);
			loss.tryEmitEmpty();
		});
		return Flux.from(result)
			.takeUntilOther(loss.asMono().publishOn(Schedulers.boundedElastic()))
			.concatWith(Mono.defer(() -> {
				LockLostException found = lost.get();
				return (found != null) ? Mono.error(found) : Mono.empty();
			}));
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
