package dev.distlock.aop;

import dev.distlock.Leadership;
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
 *
 * @since 0.1.0
 * @see LeaderOnlyAdvisor
 */
public class LeaderOnlyInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(LeaderOnlyInterceptor.class);

	private final LockRegistry registry;

	private final LeaderOnlySpecResolver specs;

	/**
	 * Create an interceptor.
	 * @param registry the registry whose leaderships decide
	 * @param specs resolves each method's annotation
	 */
	public LeaderOnlyInterceptor(LockRegistry registry, LeaderOnlySpecResolver specs) {
		this.registry = registry;
		this.specs = specs;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LeaderOnlySpec spec = this.specs.resolve(LockingInterceptor.specificMethod(invocation.getMethod(), targetClass),
				targetClass);
		Leadership leadership = this.registry.leadership(spec.name());
		ResultKind resultKind = spec.resultKind();
		if (resultKind == ResultKind.REACTIVE || resultKind == ResultKind.SUSPENDING) {
			return ReactiveResults.onlyIf(spec.method(), () -> leads(leadership, spec),
					() -> LockingInterceptor.proceedForSubscription(invocation, resultKind));
		}
		return leads(leadership, spec) ? invocation.proceed() : resultKind.skippedResult(spec.method());
	}

	private static boolean leads(Leadership leadership, LeaderOnlySpec spec) {
		boolean leader = leadership.isLeader();
		if (!leader && logger.isDebugEnabled()) {
			logger.debug(spec.description() + " skipped: this instance does not lead '" + spec.name() + "'");
		}
		return leader;
	}

}
