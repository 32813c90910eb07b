package dev.distlock.aop;

import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.distlock.LockRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/**
 * Runs {@link dev.distlock.LeaderOnly} methods only while this instance leads their
 * leadership, and skips them elsewhere as {@code onFailure = SKIP} skips a
 * {@code @DistributedLock} method. A reactive result (or a suspend function) decides on
 * each subscription.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	/** Whether this instance leads the leadership of a name now. */
	private final Predicate<String> leads;

	private final LeaderOnlySpecResolver specs;

	/**
	 * Create an interceptor.
	 * @param registry the registry whose leaderships decide, found on the first call
	 * @param specs resolves each method's annotation
	 */
	LeaderOnlyInterceptor(Supplier<LockRegistry> registry, LeaderOnlySpecResolver specs) {
		this((name) -> registry.get().leadership(name).isLeader(), specs);
	}

	private LeaderOnlyInterceptor(Predicate<String> leads, LeaderOnlySpecResolver specs) {
		this.leads = leads;
		this.specs = specs;
	}

	/**
	 * Create an interceptor that skips every call, for an instance that leads nothing:
	 * distlock is disabled, and a leader-only method must not run on every instance.
	 * @param specs resolves each method's annotation
	 * @return the interceptor
	 */
	static LeaderOnlyInterceptor skippingEveryCall(LeaderOnlySpecResolver specs) {
		return new LeaderOnlyInterceptor((name) -> false, specs);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LeaderOnlySpec spec = this.specs.resolve(LockingInterceptor.specificMethod(invocation.getMethod(), targetClass),
				targetClass);
		ResultKind resultKind = spec.resultKind();
		if (resultKind == ResultKind.REACTIVE || resultKind == ResultKind.SUSPENDING) {
			return ReactiveResults.onlyIf(spec.method(), () -> leads(spec),
					() -> LockingInterceptor.proceedForSubscription(invocation, resultKind));
		}
		return leads(spec) ? invocation.proceed() : resultKind.skippedResult(spec.method());
	}

	private boolean leads(LeaderOnlySpec spec) {
		boolean leader = this.leads.test(spec.name());
		if (!leader && logger.isDebugEnabled()) {
			logger.debug(spec.description() + " skipped: this instance does not lead '" + spec.name() + "'");
		}
		return leader;
	}

}
