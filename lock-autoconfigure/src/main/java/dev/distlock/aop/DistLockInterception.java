package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import dev.distlock.LeaderOnly;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLostAction;
import dev.distlock.LockRegistry;
import dev.distlock.aop.LockSpecResolver.LockDefaults;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * The interception of {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} and {@link LeaderOnly} methods: builds
 * an {@link DistLockAdvisor advisor} for each annotation, whose interceptor resolves each
 * method's annotation once and caches it, and checks every annotated method of every bean
 * once the singletons exist, so that an annotation that cannot work as written fails the
 * startup rather than a call.
 *
 * <p>
 * Created early, with the advisors, by the auto-proxy creator: the {@link LockRegistry}
 * is found when a method is first called or checked, not when the advisors are created.
 *
 * @since 0.1.0
 * @see DistLockAdvisor
 */
public final class DistLockInterception implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	private final @Nullable LockSpecResolver lockSpecs;

	private final LeaderOnlySpecResolver leaderOnlySpecs;

	private final @Nullable DistLockAdvisor lockAdvisor;

	private final @Nullable DistLockAdvisor concurrencyLimitAdvisor;

	private final DistLockAdvisor leaderOnlyAdvisor;

	private DistLockInterception(ConfigurableListableBeanFactory beanFactory, @Nullable LockSpecResolver lockSpecs,
			LeaderOnlySpecResolver leaderOnlySpecs, @Nullable DistLockAdvisor lockAdvisor,
			@Nullable DistLockAdvisor concurrencyLimitAdvisor, DistLockAdvisor leaderOnlyAdvisor) {
		this.beanFactory = beanFactory;
		this.lockSpecs = lockSpecs;
		this.leaderOnlySpecs = leaderOnlySpecs;
		this.lockAdvisor = lockAdvisor;
		this.concurrencyLimitAdvisor = concurrencyLimitAdvisor;
		this.leaderOnlyAdvisor = leaderOnlyAdvisor;
	}

	/**
	 * Return the interception of an application that locks with the given registry.
	 * @param registry the registry, found when a method is first called or checked
	 * @param beanFactory the beans whose methods are checked, and which {@code @bean}
	 * references in keys name
	 * @param placeholders resolves {@code ${...}} in the annotations' attributes
	 * @param conversions converts duration attributes, such as {@code 5s} or {@code PT5S}
	 * @param settings the values of attributes left empty and the advisors' order
	 * @return the interception
	 */
	public static DistLockInterception locking(ObjectProvider<LockRegistry> registry,
			ConfigurableListableBeanFactory beanFactory, PropertyResolver placeholders, ConversionService conversions,
			Settings settings) {
		Supplier<LockRegistry> lockRegistry = SingletonSupplier.of(registry::getObject);
		LockSpecResolver lockSpecs = new LockSpecResolver(placeholders, conversions, lockRegistry,
				new LockDefaults(settings.waitTime(), settings.onFailure()));
		LockNames names = new LockNames(beanFactory, settings.maxKeysPerCall());
		LostLockPolicy lostLockPolicy = new LostLockPolicy(settings.onLost());
		LeaderOnlySpecResolver leaderOnlySpecs = leaderOnlySpecs(placeholders, settings);
		return new DistLockInterception(beanFactory, lockSpecs, leaderOnlySpecs,
				lockingAdvisor(LockingAnnotation.DISTRIBUTED_LOCK, lockRegistry, lockSpecs, names, lostLockPolicy,
						settings.orderAhead(0)),
				lockingAdvisor(LockingAnnotation.CONCURRENCY_LIMIT, lockRegistry, lockSpecs, names, lostLockPolicy,
						settings.orderAhead(1)),
				leaderOnlyAdvisor(new LeaderOnlyInterceptor(lockRegistry, leaderOnlySpecs), settings));
	}

	/**
	 * Return the interception of an application that turned distlock off: nothing is
	 * locked, and every call of a {@link LeaderOnly} method is skipped, as on an instance
	 * that leads nothing, which the check of the annotations logs at WARN.
	 * @param beanFactory the beans whose methods are checked
	 * @param placeholders resolves {@code ${...}} in the annotations' attributes
	 * @param settings the leaderships the instance would campaign for, and the advisors'
	 * order
	 * @return the interception, with a {@link #leaderOnlyAdvisor()} only
	 */
	public static DistLockInterception skippingLeaderOnlyMethods(ConfigurableListableBeanFactory beanFactory,
			PropertyResolver placeholders, Settings settings) {
		LeaderOnlySpecResolver leaderOnlySpecs = leaderOnlySpecs(placeholders, settings);
		return new DistLockInterception(beanFactory, null, leaderOnlySpecs, null, null,
				leaderOnlyAdvisor(LeaderOnlyInterceptor.skippingEveryCall(leaderOnlySpecs), settings));
	}

	/**
	 * Describe the methods of every bean that carry one of distlock's annotations,
	 * directly or through a meta-annotation, found on the class a proxy of the bean would
	 * call.
	 * @param beanFactory the beans to look through
	 * @return each method and its bean as messages name them, such as
	 * {@code OrderService.pay(long) of bean 'orderService'}, bean by bean in the order
	 * the beans were defined
	 */
	public static List<String> annotatedMethods(ConfigurableListableBeanFactory beanFactory) {
		return LockedMethod.findIn(beanFactory).stream().map(LockedMethod::toString).toList();
	}

	private static LeaderOnlySpecResolver leaderOnlySpecs(PropertyResolver placeholders, Settings settings) {
		return new LeaderOnlySpecResolver(placeholders, settings.leadershipNames());
	}

	private static DistLockAdvisor lockingAdvisor(LockingAnnotation annotation, Supplier<LockRegistry> registry,
			LockSpecResolver specs, LockNames names, LostLockPolicy lostLockPolicy, int order) {
		return new DistLockAdvisor(annotation.type(),
				new LockingInterceptor(annotation, registry, specs, names, lostLockPolicy), order);
	}

	private static DistLockAdvisor leaderOnlyAdvisor(LeaderOnlyInterceptor interceptor, Settings settings) {
		return new DistLockAdvisor(LeaderOnly.class, interceptor, settings.orderAhead(2));
	}

	/**
	 * Return the advisor of {@code @DistributedLock} methods, ordered by
	 * {@code distlock.order}.
	 * @return the advisor
	 * @throws IllegalStateException if distlock is turned off
	 */
	public DistLockAdvisor lockAdvisor() {
		return locking(this.lockAdvisor);
	}

	/**
	 * Return the advisor of {@code @DistributedConcurrencyLimit} methods, ordered just
	 * before the lock's: a method with both takes its permit first.
	 * @return the advisor
	 * @throws IllegalStateException if distlock is turned off
	 */
	public DistLockAdvisor concurrencyLimitAdvisor() {
		return locking(this.concurrencyLimitAdvisor);
	}

	/**
	 * Return the advisor of {@code @LeaderOnly} methods, ordered just before the
	 * concurrency limit's: a call skipped for not leading takes no permit or lock.
	 * @return the advisor
	 */
	public DistLockAdvisor leaderOnlyAdvisor() {
		return this.leaderOnlyAdvisor;
	}

	private static DistLockAdvisor locking(@Nullable DistLockAdvisor advisor) {
		Assert.state(advisor != null, "distlock.enabled=false: no method is locked");
		return advisor;
	}

	/**
	 * Return the resolver of the locking annotations, for the tests of the package.
	 */
	@Nullable LockSpecResolver lockSpecs() {
		return this.lockSpecs;
	}

	/**
	 * Check every annotated method of every bean: the {@code @LeaderOnly} methods first,
	 * then, unless distlock is turned off, the locking annotations.
	 * @throws InvalidLockAnnotationException if an annotation cannot work as written
	 */
	@Override
	public void afterSingletonsInstantiated() {
		List<LockedMethod> methods = LockedMethod.findIn(this.beanFactory);
		new LeaderOnlyValidator(this.leaderOnlySpecs, this.lockSpecs).check(methods);
		if (this.lockSpecs != null) {
			new LockAnnotationValidator(this.lockSpecs).check(methods);
		}
	}

	/**
	 * The settings of the interception, from the {@code distlock.*} properties.
	 *
	 * @param waitTime how long to wait for a lock when the annotation does not say
	 * ({@code distlock.wait-time})
	 * @param onFailure what to do when a lock is not acquired and the annotation does not
	 * say ({@code distlock.on-failure})
	 * @param onLost what to do when a lock was lost while a method ran
	 * ({@code distlock.on-lost})
	 * @param maxKeysPerCall the most key values one call may lock
	 * ({@code distlock.max-keys-per-call})
	 * @param leadershipNames the leaderships the instance campaigns for
	 * ({@code distlock.leader.names})
	 * @param order the order of the lock's advisor ({@code distlock.order}); the others
	 * come just before it
	 */
	public record Settings(Duration waitTime, LockFailureAction onFailure, LockLostAction onLost, int maxKeysPerCall,
			Set<String> leadershipNames, int order) {

		/**
		 * Return the order moved the given number of places ahead, for the advisors that
		 * run outside the lock's, never below {@link Integer#MIN_VALUE}.
		 */
		int orderAhead(int places) {
			return Math.max(this.order, Integer.MIN_VALUE + places) - places;
		}

	}

}
