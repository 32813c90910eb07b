package dev.distlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What a lock key value may be, and its text: the same in every JVM for equal values, so
 * that equal values lock the same key everywhere.
 *
 * <p>
 * A value is rendered by its {@code toString()} (strings, numbers, booleans, characters,
 * {@code UUID}, the zone-free {@code java.time} types in ISO form, and any class that
 * declares its own {@code toString()}), except: an enum by its {@code name()}; an
 * {@code OffsetDateTime}, a {@code ZonedDateTime} and a {@code java.util.Date} (with its
 * {@code java.sql} subclasses) by their {@link Instant}, whatever the zone; a record by
 * its components, each by these rules, in the form of a record's own {@code toString()}
 * ({@code OrderKey[region=EU, id=42]}). A record's component that is an {@link Optional}
 * stands for the value it holds.
 *
 * <p>
 * Rejected, because they have no stable text: a class whose {@code toString()} is
 * {@link Object}'s (an identity hash code), a {@code Calendar}, a mutable holder from
 * {@code java.util.concurrent.atomic}, a map, a collection or array inside a key value,
 * an {@code Optional} inside an {@code Optional}, and a record with a {@code null} or
 * empty component. Calls find out when they evaluate their key; a key whose declared type
 * rules out every value is found out at startup ({@link #rejectionOf}).
 *
 * @see LockNames
 */
final class LockKeyValues {

	private static final String ATOMIC_PACKAGE = "java.util.concurrent.atomic";

	/**
	 * Why values of exactly a class have no stable text, if they have none: worked out by
	 * reflection once per class rather than per call.
	 */
	private static final ClassValue<Optional<Rejection>> EXACT_REJECTIONS = new ClassValue<>() {

		@Override
		protected Optional<Rejection> computeValue(Class<?> type) {
			return Optional.ofNullable(classRejection(type, true));
		}

	};

	private LockKeyValues() {
	}

	/**
	 * Return the text of a key value, or of one element of a key that is a collection or
	 * an array.
	 * @param value the value, an {@code Optional} key or element already unwrapped
	 * @return its text
	 * @throws UnstableKeyValueException if the value has no stable text
	 */
	static String text(Object value) {
		EXACT_REJECTIONS.get(value.getClass()).ifPresent((rejection) -> {
			throw new UnstableKeyValueException(rejection);
		});
		if (value instanceof Record record) {
			return recordText(record);
		}
		if (value instanceof Enum<?> constant) {
			return constant.name();
		}
		if (value instanceof Date date) {
			return instant(date).toString();
		}
		if (value instanceof OffsetDateTime dateTime) {
			return dateTime.toInstant().toString();
		}
		if (value instanceof ZonedDateTime dateTime) {
			return dateTime.toInstant().toString();
		}
		return value.toString();
	}

	/**
	 * Return why no call can lock a key of the given declared type, as far as the type
	 * tells: an {@code Optional} stands for the value it holds, a collection or array for
	 * its elements, and a type that is not final may hold a subclass that declares its
	 * own {@code toString()}.
	 * @param keyType the declared type of the key, such as a parameter's
	 * @return the rejection of every value of that type, or {@code null} if some value
	 * may be locked
	 */
	static @Nullable Rejection rejectionOf(ResolvableType keyType) {
		ResolvableType type = unwrapOptional(keyType);
		boolean multiple = type.isArray() || Collection.class.isAssignableFrom(type.toClass());
		if (multiple) {
			type = unwrapOptional(type.isArray() ? type.getComponentType() : type.asCollection().getGeneric(0));
		}
		Class<?> valueType = type.resolve();
		Rejection rejection = (valueType != null) ? typeRejection(valueType, new HashSet<>()) : null;
		return (rejection != null && multiple) ? rejection.ofElements() : rejection;
	}

	private static ResolvableType unwrapOptional(ResolvableType type) {
		return (type.toClass() == Optional.class) ? type.getGeneric(0) : type;
	}

	/**
	 * Return why no value of the given type has a stable text, following the components
	 * of records not yet seen.
	 */
	private static @Nullable Rejection typeRejection(Class<?> declaredType, Set<Class<?>> seen) {
		Class<?> type = ClassUtils.resolvePrimitiveIfNecessary(declaredType);
		Rejection rejection = classRejection(type, Modifier.isFinal(type.getModifiers()));
		if (rejection != null || !type.isRecord() || !seen.add(type)) {
			return rejection;
		}
		for (RecordComponent component : type.getRecordComponents()) {
			ResolvableType componentType = unwrapOptional(ResolvableType.forType(component.getGenericType()));
			Class<?> resolved = componentType.resolve();
			Rejection ofComponent = (resolved != null) ? typeRejection(resolved, seen) : null;
			if (ofComponent != null) {
				return ofComponent.ofComponent(type, component.getName());
			}
		}
		return null;
	}

	/**
	 * Return why a value of the given type has no stable text, from the type alone.
	 * @param type the value's type
	 * @param exact whether values have exactly that type, not a subclass
	 */
	private static @Nullable Rejection classRejection(Class<?> type, boolean exact) {
		String name = type.getTypeName();
		if (type == Optional.class) {
			return new Rejection("an Optional inside an Optional", "unwrap the inner Optional in the key expression");
		}
		if (type.isArray() || Collection.class.isAssignableFrom(type)) {
			return new Rejection(
					"a " + name + " inside a key value: only the key itself may be a collection or array,"
							+ " whose elements are locked one by one",
					"lock on the values themselves, not on groups of them");
		}
		if (Map.class.isAssignableFrom(type)) {
			return new Rejection("a " + name + ", a map", "lock on its keys, such as \"#map.keySet()\", or on a value");
		}
		if (Calendar.class.isAssignableFrom(type)) {
			return new Rejection("a " + name + ", whose text depends on its time zone and settings",
					"lock on its instant, such as \"#calendar.toInstant()\"");
		}
		if (isAtomic(type)) {
			return new Rejection("a " + name + ", a mutable holder of " + ATOMIC_PACKAGE,
					"lock on its current value, such as \"#counter.get()\"");
		}
		if (exact && !declaresToString(type)) {
			return new Rejection(
					"a " + name + ", whose toString() is Object's: an identity hash code, which differs between"
							+ " equal values",
					"declare a toString() that states its identity, make it a record, or lock on an identifying"
							+ " property such as \"#order.id\"");
		}
		return null;
	}

	private static boolean isAtomic(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			if (ATOMIC_PACKAGE.equals(candidate.getPackageName())) {
				return true;
			}
		}
		return false;
	}

	private static boolean declaresToString(Class<?> type) {
		Method toString = ReflectionUtils.findMethod(type, "toString");
		return toString != null && toString.getDeclaringClass() != Object.class;
	}

	private static String recordText(Record record) {
		Class<?> type = record.getClass();
		StringJoiner text = new StringJoiner(", ", type.getSimpleName() + "[", "]");
		for (RecordComponent component : type.getRecordComponents()) {
			Method accessor = component.getAccessor();
			ReflectionUtils.makeAccessible(accessor);
			Object value = ReflectionUtils.invokeMethod(accessor, record);
			Object held = (value instanceof Optional<?> optional) ? optional.orElse(null) : value;
			if (held == null) {
				String missing = (value == null) ? "null" : "an empty Optional";
				throw new UnstableKeyValueException(
						new Rejection(missing, "give every component a value").ofComponent(type, component.getName()));
			}
			try {
				text.add(component.getName() + "=" + text(held));
			}
			catch (UnstableKeyValueException ex) {
				throw new UnstableKeyValueException(ex.rejection().ofComponent(type, component.getName()));
			}
		}
		return text.toString();
	}

	/**
	 * Return the instant of a date, with the nanoseconds of a {@code Timestamp};
	 * {@code java.sql.Date} and {@code java.sql.Time} cannot convert themselves.
	 */
	private static Instant instant(Date date) {
		return (date instanceof Timestamp timestamp) ? timestamp.toInstant() : Instant.ofEpochMilli(date.getTime());
	}

	/**
	 * Why a key value cannot be locked, and what to lock on instead.
	 *
	 * @param problem what the value is, to follow "evaluated to"
	 * @param action what to write instead
	 */
	record Rejection(String problem, String action) {

		Rejection ofComponent(Class<?> recordType, String component) {
			return new Rejection(
					"a " + recordType.getTypeName() + " whose component '" + component + "' is " + this.problem,
					this.action);
		}

		Rejection ofElements() {
			return new Rejection("elements each " + this.problem, this.action);
		}

	}

	/**
	 * Thrown when a key value has no stable text.
	 */
	static final class UnstableKeyValueException extends RuntimeException {

		private final Rejection rejection;

		UnstableKeyValueException(Rejection rejection) {
			super(rejection.problem(), null, false, false);
			this.rejection = rejection;
		}

		Rejection rejection() {
			return this.rejection;
		}

	}

}
