package dev.distlock.aop;

import java.lang.reflect.Method;

/**
 * The {@code #root} object of a lock key expression, as in Spring's cache expressions.
 *
 * @param method the method being called
 * @param target the object it is called on
 * @param targetClass the class of the target
 * @param args the arguments of the call
 * @since 0.1.0
 */
public record LockExpressionRoot(Method method, Object target, Class<?> targetClass, Object[] args) {

	/**
	 * Return the method being called, for {@code #root.method}.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return the name of the method being called, for {@code #root.methodName}.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * Return the object the method is called on, for {@code #root.target}.
	 * @return the target
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * Return the class of the target, for {@code #root.targetClass}.
	 * @return the target class
	 */
	public Class<?> getTargetClass() {
		return this.targetClass;
	}

	/**
	 * Return the arguments of the call, for {@code #root.args}.
	 * @return the arguments
	 */
	public Object[] getArgs() {
		return this.args;
	}

}
