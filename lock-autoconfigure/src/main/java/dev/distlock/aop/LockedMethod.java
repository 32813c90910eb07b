package dev.distlock.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import dev.distlock.DistributedLock;

import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A {@link DistributedLock} or {@link dev.distlock.DistributedConcurrencyLimit} method of
 * a bean, found on the class a proxy of the bean would call.
 *
 * @param beanName the name of the bean
 * @param beanType the user class of the bean's target
 * @param method the annotated method, declared by or inherited into that class
 * @since 0.1.0
 */
public record LockedMethod(String beanName, Class<?> beanType, Method method) {

	private static final List<Class<? extends Annotation>> ANNOTATION_TYPES = Arrays.stream(LockingAnnotation.values())
		.<Class<? extends Annotation>>map(LockingAnnotation::type)
		.toList();

	/**
	 * Find the {@link DistributedLock} and
	 * {@link dev.distlock.DistributedConcurrencyLimit} methods of every bean.
	 * @param beanFactory the beans to look through
	 * @return the annotated methods, bean by bean in the order the beans were defined
	 */
	public static List<LockedMethod> findIn(ConfigurableListableBeanFactory beanFactory) {
		List<LockedMethod> found = new ArrayList<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
			if (type != null) {
				Class<?> userType = ClassUtils.getUserClass(type);
				if (AnnotationUtils.isCandidateClass(userType, ANNOTATION_TYPES)) {
					MethodIntrospector
						.selectMethods(userType, (ReflectionUtils.MethodFilter) LockSpecResolver::isLocked)
						.forEach((method) -> found.add(new LockedMethod(beanName, userType, method)));
				}
			}
		}
		return found;
	}

	/**
	 * Return the method as messages name it, such as {@code OrderService.pay(long)}.
	 * @return the description of the method
	 */
	public String description() {
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
