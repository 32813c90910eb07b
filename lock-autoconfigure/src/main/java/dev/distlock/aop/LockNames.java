package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import dev.distlock.LockKeyException;
import dev.distlock.LockName;
import dev.distlock.aop.LockKeyValues.Rejection;
import dev.distlock.aop.LockKeyValues.UnstableKeyValueException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.util.Assert;
import org.springframework.util.ObjectUtils;
import org.springframework.util.StringUtils;

/**
 * Evaluates a call's lock key into the names of the locks it takes: the spec's name given
 * whole, or per key value the {@link LockName#keyed keyed} name of the spec's name and
 * the value (so metrics are tagged with the annotation's name and never with a key
 * value), sorted so that every call takes several locks in the same global order. A key
 * (or element of a collection or array key) that is an {@link Optional} stands for the
 * value it holds; an empty one, like {@code null}, fails the call, and so do a key with
 * more values than the most keys a call may lock and a value without a stable text
 * ({@link LockKeyValues}).
 */
final class LockNames {

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final @Nullable BeanFactoryResolver beans;

	private final int maxKeysPerCall;

	/**
	 * Create an evaluator.
	 * @param beanFactory resolves {@code @bean} references, or {@code null} for none
	 * @param maxKeysPerCall the most key values one call may lock
	 * ({@code distlock.max-keys-per-call})
	 */
	LockNames(@Nullable BeanFactory beanFactory, int maxKeysPerCall) {
		Assert.isTrue(maxKeysPerCall > 0, () -> "'maxKeysPerCall' must be positive, was " + maxKeysPerCall);
		this.beans = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
		this.maxKeysPerCall = maxKeysPerCall;
	}

	/**
	 * Return the sorted, distinct names of the locks a call takes.
	 * @param spec the method's lock spec
	 * @param target the object the method is called on
	 * @param args the arguments
	 * @return the lock names
	 * @throws LockKeyException if the key evaluates to nothing usable or to more values
	 * than a call may lock
	 */
	List<LockName> of(LockSpec spec, Object target, Object[] args) {
		Expression key = spec.key();
		if (key == null) {
			return List.of(LockName.of(spec.name()));
		}
		Object value = evaluate(spec, key, target, args);
		Collection<?> values = toCollection(value);
		if (values.isEmpty()) {
			throw keyException(spec, "evaluated to an empty " + value.getClass().getSimpleName());
		}
		if (values.size() > this.maxKeysPerCall) {
			throw keyException(spec, "evaluated to " + values.size() + " keys, more than distlock.max-keys-per-call ("
					+ this.maxKeysPerCall + ")");
		}
		boolean ofElements = (value instanceof Collection<?>) || value.getClass().isArray();
		TreeSet<LockName> names = new TreeSet<>();
		boolean several = values.size() > 1;
		for (Object element : values) {
			String ofElement = several ? " for one of its elements" : "";
			Object held = element;
			if (ofElements && element instanceof Optional<?> optional) {
				if (optional.isEmpty()) {
					throw keyException(spec, "evaluated to an empty Optional" + ofElement);
				}
				held = optional.get();
			}
			if (held == null) {
				throw keyException(spec, "evaluated to null" + ofElement);
			}
			String text = text(spec, held, several);
			if (!StringUtils.hasText(text)) {
				throw keyException(spec, "evaluated to a blank value" + ofElement);
			}
			names.add(LockName.keyed(spec.name(), text));
		}
		return new ArrayList<>(names);
	}

	private static String text(LockSpec spec, Object value, boolean oneOfSeveral) {
		try {
			return LockKeyValues.text(value);
		}
		catch (UnstableKeyValueException ex) {
			Rejection rejection = ex.rejection();
			String subject = oneOfSeveral ? "has an element that is " : "evaluated to ";
			throw keyException(spec, subject + rejection.problem() + "; " + rejection.action());
		}
	}

	private Object evaluate(LockSpec spec, Expression key, Object target, Object[] args) {
		Method method = spec.method();
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new LockExpressionRoot(method, target, target.getClass(), args), method, args, this.parameterNames);
		if (this.beans != null) {
			context.setBeanResolver(this.beans);
		}
		Object value;
		try {
			value = key.getValue(context);
		}
		catch (EvaluationException ex) {
			throw keyException(spec, "failed: " + ex.getMessage());
		}
		if (value == null) {
			throw keyException(spec, "evaluated to null");
		}
		if (value instanceof Optional<?> optional) {
			return optional.orElseThrow(() -> keyException(spec, "evaluated to an empty Optional"));
		}
		return value;
	}

	private static Collection<?> toCollection(Object value) {
		if (value instanceof Collection<?> collection) {
			return collection;
		}
		if (value.getClass().isArray()) {
			return Arrays.asList(ObjectUtils.toObjectArray(value));
		}
		return List.of(value);
	}

	private static LockKeyException keyException(LockSpec spec, String problem) {
		return new LockKeyException("Lock key '" + spec.keySource() + "' of " + spec.description() + " " + problem
				+ "; the method was not run");
	}

}
