package dev.distlock.aop;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} or {@link dev.distlock.LeaderOnly}
 * annotations cannot work as written. At startup it fails the application context,
 * reported by a failure analyzer.
 *
 * @since 0.1.0
 */
public class InvalidLockAnnotationException extends IllegalStateException {

	private final List<Problem> problems;

	/**
	 * Create a new exception.
	 * @param problems what is wrong, one entry per attribute
	 */
	public InvalidLockAnnotationException(List<Problem> problems) {
		super(problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
		this.problems = List.copyOf(problems);
	}

	/**
	 * Return what is wrong.
	 * @return the problems, one entry per attribute
	 */
	public List<Problem> getProblems() {
		return this.problems;
	}

	/**
	 * One attribute of one annotated method that cannot work as written.
	 *
	 * @param bean the bean name, or {@code null} when not known
	 * @param annotation the annotation, such as {@code @DistributedLock}
	 * @param method the method, such as {@code OrderService.pay(long)}
	 * @param attribute the annotation attribute
	 * @param problem what is wrong with it
	 * @param action what to write instead
	 */
	public record Problem(@org.jspecify.annotations.Nullable String bean, String annotation, String method,
			String attribute, String problem, String action) {

		/**
		 * Return a copy naming the given bean.
		 * @param beanName the bean name
		 * @return the problem of that bean
		 */
		public Problem inBean(String beanName) {
			return new Problem(beanName, this.annotation, this.method, this.attribute, this.problem, this.action);
		}

		@Override
		public String toString() {
			return this.annotation + " on " + this.method + ((this.bean != null) ? " of bean '" + this.bean + "'" : "")
					+ ", attribute '" + this.attribute + "': " + this.problem;
		}

	}

}
