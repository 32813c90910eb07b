package dev.distlock.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.distlock.DistributedLock;
import dev.distlock.LeaderOnly;

import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A method of a bean with one of distlock's annotations: {@link DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} or {@link LeaderOnly}, found on the
 * class a proxy of the bean would call.
 *
 * @param beanName the name of the bean
 * @param beanType the user class of the bean's target
 * @param method the annotated method, declared by or inherited into that class
 */
record LockedMethod(String beanName, Class<?> beanType, Method method) {

	private static final List<Class<? extends Annotation>> ANNOTATION_TYPES = Stream
		.<Class<? extends Annotation>>concat(Arrays.stream(LockingAnnotation.values()).map(LockingAnnotation::type),
				Stream.of(LeaderOnly.class))
		.toList();

	/**
	 * Find the methods of every bean that carry one of distlock's annotations, directly
	 * or through a meta-annotation.
	 * @param beanFactory the beans to look through
	 * @return the annotated methods, bean by bean in the order the beans were defined
	 */
	static List<LockedMethod> findIn(ConfigurableListableBeanFactory beanFactory) {
		List<LockedMethod> found = new ArrayList<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
			if (type != null) {
				Class<?> userType = ClassUtils.getUserClass(type);
				if (AnnotationUtils.isCandidateClass(userType, ANNOTATION_TYPES)) {
					MethodIntrospector.selectMethods(userType, (ReflectionUtils.MethodFilter) LockedMethod::isAnnotated)
						.forEach((method) -> found.add(new LockedMethod(beanName, userType, method)));
				}
			}
		}
		return found;
	}

	/**
	 * Return whether the method carries one of distlock's annotations.
	 */
	private static boolean isAnnotated(Method method) {
		return LockingAnnotation.anyPresentOn(method) || isLeaderOnly(method);
	}

	/**
	 * Return whether the method carries {@link LeaderOnly}, directly or through a
	 * meta-annotation.
	 * @param method the method
	 * @return whether the method runs only on the leader
	 */
	static boolean isLeaderOnly(Method method) {
		return AnnotatedTarget.find(method, LeaderOnly.class).isPresent();
	}

	/**
	 * Return the method as messages name it, such as {@code OrderService.pay(long)}.
	 * @return the description of the method
	 */
	String description() {
		return describe(this.beanType, this.method);
	}

	/**
	 * Return the method and its bean as messages name them, such as
	 * {@code OrderService.pay(long) of bean 'orderService'}.
	 */
	@Override
	public String toString() {
		return description() + " of bean '" + this.beanName + "'";
	}

	/**
	 * Describe a method of a class as messages name it: the simple names of the class and
	 * of the parameter types.
	 */
	static String describe(Class<?> type, Method method) {
		return type.getSimpleName() + "." + method.getName() + "("
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
				+ ")";
	}

}
