package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * Runs the methods of one {@link LockingAnnotation} while holding what their spec says:
 * their locks, read shares, or permits, a permit being a lock that several calls may hold
 * at once. Thin by design: the spec is resolved once per method by a
 * {@link LockSpecResolver}, the lock names are evaluated per call by {@link LockNames},
 * and the {@link LockRegistry} does the locking.
 *
 * <p>
 * Synchronous methods hold thread-owned, reentrant locks (and permits, which belong to no
 * thread), released when the method ends or, inside a transaction the caller started,
 * after that transaction completes. Methods returning a {@code CompletionStage} hold
 * owner-free leases until the stage completes and, inside a caller's transaction, that
 * transaction completes too. Methods returning a reactive type that Spring's
 * {@link org.springframework.core.ReactiveAdapterRegistry} adapts, such as a
 * {@code Mono}, a {@code Flux} or an RxJava {@code Single}, hold owner-free leases for
 * each subscription until it completes, fails or is cancelled; so do Kotlin
 * {@code suspend} functions, which Spring's AOP runs as a {@code Mono} it awaits, until
 * they complete. A call whose lock names cannot be evaluated fails as its result kind
 * fails: a synchronous method throws, the others return a failed future or a reactive
 * result that signals the failure.
 *
 * <p>
 * A lock found lost while the work runs stops it, unless the {@link LostLockPolicy} lets
 * it finish: a transaction does not commit, a future fails at once and its method's stage
 * is cancelled, a reactive result cancels its method's publisher and signals the loss. A
 * synchronous method is not interrupted: it throws after it returns, and may check
 * {@link LockContext#assertHeld()} before each side effect.
 *
 * @see DistLockAdvisor
 */
final class LockingInterceptor implements MethodInterceptor {

	private final LockingAnnotation annotation;

	private final Supplier<LockRegistry> registry;

	private final LockSpecResolver specs;

	private final LockNames names;

	private final LostLockPolicy lostLockPolicy;

	private final OutageLog outage;

	/**
	 * Create an interceptor of the methods that carry the given annotation.
	 * @param annotation the annotation whose spec each call follows
	 * @param registry takes the locks or permits, found on the first call
	 * @param specs resolves each method's annotation
	 * @param names evaluates each call's lock names
	 * @param lostLockPolicy what to do when a lock was lost while a method ran
	 */
	LockingInterceptor(LockingAnnotation annotation, Supplier<LockRegistry> registry, LockSpecResolver specs,
			LockNames names, LostLockPolicy lostLockPolicy) {
		this.annotation = annotation;
		this.registry = registry;
		this.specs = specs;
		this.names = names;
		this.lostLockPolicy = lostLockPolicy;
		this.outage = new OutageLog(annotation);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		Method method = specificMethod(invocation.getMethod(), targetClass);
		LockSpec spec = this.specs.resolve(this.annotation, method, targetClass);
		List<LockName> lockNames;
		try {
			lockNames = this.names.of(spec, (target != null) ? target : method.getDeclaringClass(),
					invocation.getArguments());
		}
		catch (RuntimeException ex) {
			return spec.resultKind().failedResult(spec.method(), ex);
		}
		return switch (spec.resultKind()) {
			case SYNCHRONOUS -> invokeSynchronously(invocation, spec, lockNames);
			case COMPLETION_STAGE -> invokeForStage(invocation, spec, lockNames);
			case REACTIVE, SUSPENDING -> ReactiveResults.hold(() -> acquireLeases(spec, lockNames),
					() -> proceedForSubscription(invocation, spec.resultKind()), this.lostLockPolicy, spec);
		};
	}

	/**
	 * Return the method the target class implements for the called one, as the startup
	 * check resolved it: a JDK proxy calls the interface method, whose parameter names
	 * and (for a generic interface) return type may differ from the annotated one.
	 * @param method the called method
	 * @param targetClass the class of the target, or {@code null} for the declaring class
	 * @return the method to resolve the spec of
	 */
	static Method specificMethod(Method method, @Nullable Class<?> targetClass) {
		return (targetClass != null) ? AopUtils.getMostSpecificMethod(method, targetClass) : method;
	}

	private @Nullable Object invokeSynchronously(MethodInvocation invocation, LockSpec spec, List<LockName> lockNames)
			throws Throwable {
		CallLocks locks = CallLocks.ownedByThread(this.registry.get(), spec, lockNames, this.outage);
		if (locks == null) {
			return notAcquired(spec, lockNames);
		}
		TransactionAwareRelease release = TransactionAwareRelease.begin(locks, spec, this.lostLockPolicy);
		Object result = null;
		Throwable failure = null;
		try (LockContext.Binding binding = LockContext.bind(locks.leases())) {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
		}
		throwIfFailed(release.callEnded(), spec, failure);
		return result;
	}

	private @Nullable Object invokeForStage(MethodInvocation invocation, LockSpec spec, List<LockName> lockNames)
			throws Throwable {
		CallLocks leases = CallLocks.ownerFree(this.registry.get(), spec, lockNames, this.outage);
		if (leases == null) {
			return notAcquired(spec, lockNames);
		}
		TransactionAwareRelease release = TransactionAwareRelease.begin(leases, spec, this.lostLockPolicy);
		CompletionStage<?> stage = null;
		Throwable failure = null;
		try (LockContext.Binding binding = LockContext.bind(leases.leases())) {
			stage = (CompletionStage<?>) invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
		}
		if (stage == null) {
			throwIfFailed(release.callEnded(), spec, failure);
			return null;
		}
		CompletableFuture<Object> result = new CompletableFuture<>();
		if (this.lostLockPolicy.stopsWork()) {
			failOnLoss(leases, result, stage);
		}
		return releasingOnCompletion(stage, result, release, spec);
	}

	/**
	 * Fail the result with the loss as soon as a lease is found lost, and cancel the
	 * method's stage, whose completion then releases the leases. The loss is told on the
	 * engine's thread; the result's dependents and the release run on the default async
	 * executor of {@link CompletableFuture} instead.
	 */
	private static void failOnLoss(CallLocks leases, CompletableFuture<Object> result, CompletionStage<?> stage) {
		leases.onLoss((lost) -> CompletableFuture.runAsync(() -> {
			result.completeExceptionally(lost);
			cancel(stage);
		}));
	}

	/**
	 * Complete the result as the stage completes once the leases were released (or,
	 * inside a caller's transaction still running, once their release was deferred to its
	 * end), or with what the release found out; cancelling it cancels the stage.
	 */
	private CompletableFuture<Object> releasingOnCompletion(CompletionStage<?> stage, CompletableFuture<Object> result,
			TransactionAwareRelease release, LockSpec spec) {
		stage.whenComplete((value, failure) -> {
			Throwable thrown = release.callEnded().thrown(this.lostLockPolicy, spec, failure);
			if (thrown != null) {
				result.completeExceptionally(thrown);
			}
			else {
				result.complete(value);
			}
		});
		result.whenComplete((value, failure) -> {
			if (result.isCancelled()) {
				cancel(stage);
			}
		});
		return result;
	}

	/**
	 * Cancel the method's stage through its {@code CompletableFuture} view: a
	 * {@code CompletableFuture} completes with a {@code CancellationException}, and the
	 * work that was to complete it is not interrupted.
	 */
	private static void cancel(CompletionStage<?> stage) {
		stage.toCompletableFuture().cancel(true);
	}

	/**
	 * Throw what a call throws once its locks were released: its own failure, a lost lock
	 * as the policy says, or a failed release.
	 */
	private void throwIfFailed(ReleaseOutcome released, LockSpec spec, @Nullable Throwable failure) throws Throwable {
		Throwable thrown = released.thrown(this.lostLockPolicy, spec, failure);
		if (thrown != null) {
			throw thrown;
		}
	}

	private @Nullable CallLocks acquireLeases(LockSpec spec, List<LockName> lockNames) {
		CallLocks leases = CallLocks.ownerFree(this.registry.get(), spec, lockNames, this.outage);
		if (leases == null && !spec.skipOnFailure()) {
			throw acquisitionFailure(spec, lockNames);
		}
		return leases;
	}

	/**
	 * Run the rest of the advice chain and the method for one subscription, on a clone of
	 * the invocation: a proceeded invocation would skip the advice after this one. A
	 * suspend function's clone gets a continuation whose context carries the
	 * subscription's leases into the function's coroutine.
	 * @param invocation the call
	 * @param resultKind how the method delivers its result
	 * @return the method's result
	 */
	static @Nullable Object proceedForSubscription(MethodInvocation invocation, ResultKind resultKind) {
		MethodInvocation call = invocation;
		if (invocation instanceof ProxyMethodInvocation proxied) {
			call = (resultKind != ResultKind.SUSPENDING) ? proxied.invocableClone()
					: proxied.invocableClone(SuspendingFunctions.inLockContext(proxied.getArguments()));
		}
		try {
			return call.proceed();
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new java.lang.reflect.UndeclaredThrowableException(ex);
		}
	}

	private @Nullable Object notAcquired(LockSpec spec, List<LockName> lockNames) {
		if (spec.skipOnFailure()) {
			return spec.resultKind().skippedResult(spec.method());
		}
		throw acquisitionFailure(spec, lockNames);
	}

	private static LockAcquisitionException acquisitionFailure(LockSpec spec, List<LockName> lockNames) {
		String name = lockNames.stream().map(LockName::value).collect(Collectors.joining(", "));
		return new LockAcquisitionException(name, spec.target().describe(name) + " of " + spec.description()
				+ " was not acquired within " + spec.waitTime(), null);
	}

}
