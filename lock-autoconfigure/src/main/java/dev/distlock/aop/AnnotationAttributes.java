package dev.distlock.aop;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.StringUtils;

/**
 * Reads the text attributes of a {@link dev.distlock.DistributedLock} or
 * {@link dev.distlock.DistributedConcurrencyLimit}: the name, checked by the lock
 * registry that will lock it, the durations, converted by the application's conversion
 * service, and the limit. Each resolves {@code ${...}} placeholders first.
 */
final class AnnotationAttributes {

	private final PropertyResolver placeholders;

	private final ConversionService conversions;

	private final Supplier<LockRegistry> registry;

	AnnotationAttributes(PropertyResolver placeholders, ConversionService conversions,
			Supplier<LockRegistry> registry) {
		this.placeholders = placeholders;
		this.conversions = conversions;
		this.registry = registry;
	}

	/**
	 * Return the lock name written, or the fallback when none is.
	 */
	String name(String value, String fallback, AnnotationProblems problems) {
		if (!StringUtils.hasText(value)) {
			return fallback;
		}
		String name;
		try {
			name = this.placeholders.resolveRequiredPlaceholders(value);
		}
		catch (IllegalArgumentException ex) {
			problems.add("name", ex.getMessage(), "define the property or write the name as a literal");
			return value;
		}
		problems.check("name", () -> this.registry.get().obtain(name),
				"write a name without '!' whose braces, if any, enclose the part that chooses the Cluster slot, such as \"{tenant}:orders\"");
		return name;
	}

	/**
	 * Check that the registry offers what an annotation takes, such as the read side of a
	 * read/write lock, which a registry on a quorum of independent nodes does not.
	 * @param attribute the attribute that asks for it
	 * @param primitive takes it from the registry
	 */
	void offered(String attribute, Consumer<LockRegistry> primitive, AnnotationProblems problems) {
		try {
			primitive.accept(this.registry.get());
		}
		catch (UnsupportedOperationException ex) {
			problems.add(attribute, ex.getMessage(),
					"take an exclusive lock instead, or lock with a registry that" + " offers it");
		}
		catch (IllegalArgumentException ex) {
			// A name the registry refuses, which the name's own check reports
		}
	}

	/**
	 * Return the duration written, or {@code null} when none is or it is not valid.
	 * @param zeroAllowed whether zero is allowed; if not, it must also be at least a
	 * millisecond, the unit Redis counts
	 */
	@Nullable Duration duration(String attribute, String value, boolean zeroAllowed, AnnotationProblems problems) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		String resolved;
		try {
			resolved = this.placeholders.resolveRequiredPlaceholders(value).trim();
		}
		catch (IllegalArgumentException ex) {
			problems.add(attribute, ex.getMessage(),
					"define the property or write the duration as a literal such as \"5s\"");
			return null;
		}
		Duration duration;
		try {
			duration = this.conversions.convert(resolved, Duration.class);
		}
		catch (ConversionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			problems.add(attribute, "'" + value + "' is not a duration: " + cause.getMessage(),
					"write a duration such as \"500ms\", \"5s\" or \"PT5S\", or a ${...} placeholder that resolves to one");
			return null;
		}
		if (duration == null || duration.isNegative() || (!zeroAllowed && duration.isZero())) {
			problems.add(attribute,
					"'" + value + "' is " + ((duration == null || duration.isZero()) ? "zero" : "negative"),
					"use a " + (zeroAllowed ? "non-negative" : "positive") + " duration such as \"5s\"");
			return null;
		}
		if (!zeroAllowed && !countsInMilliseconds(duration)) {
			problems.add(attribute, "'" + value + "' cannot be kept by Redis, which counts whole milliseconds",
					"use a duration from 1ms to about 290 million years, such as \"30s\"");
			return null;
		}
		return duration;
	}

	/**
	 * Return the limit written: a positive whole number, or {@code 0} when it is not one.
	 */
	int limit(String value, AnnotationProblems problems) {
		String resolved;
		try {
			resolved = this.placeholders.resolveRequiredPlaceholders(value).trim();
		}
		catch (IllegalArgumentException ex) {
			problems.add("limit", ex.getMessage(), "define the property or write the limit as a number such as \"2\"");
			return 0;
		}
		int limit;
		try {
			limit = Integer.parseInt(resolved);
		}
		catch (NumberFormatException ex) {
			limit = 0;
		}
		if (limit < 1) {
			problems.add("limit",
					"'" + value + "'" + (resolved.equals(value) ? "" : " (resolved to '" + resolved + "')")
							+ " is not a positive whole number",
					"write how many calls may run at once, such as \"2\", or a ${...} placeholder that resolves to one");
			return 0;
		}
		return limit;
	}

	private static boolean countsInMilliseconds(Duration duration) {
		try {
			return duration.toMillis() >= 1;
		}
		catch (ArithmeticException ex) {
			return false;
		}
	}

}
