package dev.distlock.aop;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Calendar;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import dev.distlock.DistributedLock;
import dev.distlock.LockFailureAction;
import dev.distlock.LockKeyException;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How the values of {@link DistributedLock} keys become lock names: wrapped values are
 * the lock of what they wrap, distinct values never share a lock, equal values lock the
 * same key in every JVM, and values without a stable text fail the call or, when the
 * parameter's type says so, the startup.
 */
@Timeout(60)
class LockKeyValueTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s", "distlock.lease-time=3s")
		.withUserConfiguration(ServicesConfiguration.class);

	@Test
	void optionalKeyIsTheSameLockAsTheValueItHolds() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThat(service.byOptional(Optional.of("x"))).isEqualTo("lock:item:x");
			assertThat(service.byText("x")).isEqualTo("lock:item:x");
			assertThat(service.byOptionals(List.of(Optional.of("y"), Optional.of("x")))).isEqualTo("lock:item:y");
			try (TestLockRegistry rival = rival(); LockLease held = rival.registry().acquire("item:x", Duration.ZERO)) {
				assertThat(service.skippingByOptional(Optional.of("x"))).as("call while 'x' is held elsewhere")
					.isNull();
			}
			assertThat(redisKeys("lock:item:*")).isEmpty();
		});
	}

	@Test
	void emptyOptionalKeyFailsTheCallWithoutRunningIt() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byOptional(Optional.empty()))
				.withMessage("Lock key '#id' of KeyedService.byOptional(Optional) evaluated to an empty Optional;"
						+ " the method was not run");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byOptionals(List.of(Optional.of("x"), Optional.empty())))
				.withMessage("Lock key '#ids' of KeyedService.byOptionals(List) evaluated to an empty Optional"
						+ " for one of its elements; the method was not run");
			assertThat(service.calls()).hasValue(0);
			assertThat(redisKeys("lock:item:*")).isEmpty();
		});
	}

	@Test
	void unpairedSurrogatesAndAQuestionMarkAreThreeDistinctLocks() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			String high = service.byText("\uD800");
			String low = service.byText("\uDFFF");
			String questionMark = service.byText("?");
			assertThat(questionMark).isEqualTo("lock:item:%3F");
			assertThat(List.of(high, low, questionMark)).doesNotHaveDuplicates();
			try (TestLockRegistry rival = rival();
					LockLease held = rival.registry().acquire("item:%3F", Duration.ZERO)) {
				assertThat(service.byText("\uD800")).isEqualTo(high);
				assertThat(service.byText("\uDFFF")).isEqualTo(low);
			}
			assertThat(redisKeys("lock:item:*")).isEmpty();
		});
	}

	@Test
	void keyWithMoreValuesThanACallMayLockFailsTheCallBeforeLockingAny() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			List<Integer> tooMany = IntStream.rangeClosed(1, 101).boxed().toList();
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byIds(tooMany, () -> redisKeys("lock:batch:*")))
				.withMessage("Lock key '#ids' of KeyedService.byIds(List, Supplier) evaluated to 101 keys, more than"
						+ " distlock.max-keys-per-call (100); the method was not run");
			assertThat(service.calls()).hasValue(0);
			assertThat(redisKeys("*batch*")).as("lock keys and fencing keys").isEmpty();
			assertThat(service.byIds(tooMany.subList(0, 100), () -> redisKeys("lock:batch:*"))).hasSize(100);
			assertThat(redisKeys("lock:batch:*")).isEmpty();
		});
	}

	@Test
	void mostKeysPerCallIsConfigurable() {
		this.contextRunner.withPropertyValues("distlock.max-keys-per-call=2").run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThat(service.byIds(List.of(1, 2), () -> redisKeys("lock:batch:*"))).hasSize(2);
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byIds(List.of(1, 2, 3), () -> redisKeys("lock:batch:*")))
				.withMessageContaining("evaluated to 3 keys, more than distlock.max-keys-per-call (2)");
		});
	}

	@Test
	void equalRecordsLockTheSameKeyRenderedByTheirComponents() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			Instant due = Instant.parse("2024-05-01T10:00:00Z");
			String inParis = inZone("Europe/Paris", () -> service.byShipment(new Shipment("s-1", Date.from(due))));
			String inNewYork = inZone("America/New_York",
					() -> service.byShipment(new Shipment("s-1", Date.from(due))));
			String name = LockName.keyed("shipment", "Shipment[id=s-1, due=2024-05-01T10:00:00Z]").value();
			assertThat(inParis).isEqualTo(inNewYork).isEqualTo("lock:" + name);
			try (TestLockRegistry rival = rival(); LockLease held = rival.registry().acquire(name, Duration.ZERO)) {
				assertThat(inZone("Asia/Tokyo", () -> service.byShipment(new Shipment("s-1", Date.from(due)))))
					.as("call with an equal record while its lock is held elsewhere")
					.isNull();
			}
			assertThat(service.byShipment(new Shipment("s-2", Date.from(due))))
				.isEqualTo("lock:" + LockName.keyed("shipment", "Shipment[id=s-2, due=2024-05-01T10:00:00Z]").value());
		});
	}

	@Test
	void datesLockTheirInstantWhateverTheDefaultZone() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			Instant due = Instant.parse("2024-05-01T10:00:00Z");
			String expected = "lock:" + LockName.keyed("due", "2024-05-01T10:00:00Z").value();
			assertThat(inZone("Europe/Paris", () -> service.byDate(Date.from(due)))).isEqualTo(expected);
			assertThat(inZone("America/New_York", () -> service.byDate(Date.from(due)))).isEqualTo(expected);
			assertThat(inZone("America/New_York", () -> service.byDate(new java.sql.Date(due.toEpochMilli()))))
				.isEqualTo(expected);
			assertThat(service.byDate(Timestamp.from(Instant.parse("2024-05-01T10:00:00.123456789Z"))))
				.isEqualTo("lock:" + LockName.keyed("due", "2024-05-01T10:00:00.123456789Z").value());
			assertThat(service.byValue(due.atZone(ZoneId.of("Asia/Tokyo")))).isEqualTo(service.byValue(due))
				.isEqualTo(service.byValue(due.atOffset(ZoneOffset.ofHours(-5))))
				.isEqualTo("lock:" + LockName.keyed("value", "2024-05-01T10:00:00Z").value());
		});
	}

	@Test
	void enumsLockTheirName() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThat(service.byValue(Region.EU)).isEqualTo("lock:value:EU");
		});
	}

	@Test
	void valueWhoseToStringIsObjectsFailsTheCallNamingItsType() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byOrder(new Order(7)))
				.withMessage("Lock key '#order' of KeyedService.byOrder(Order) evaluated to a"
						+ " dev.distlock.aop.LockKeyValueTests$Order, whose toString() is Object's: an identity hash"
						+ " code, which differs between equal values; declare a toString() that states its identity,"
						+ " make it a record, or lock on an identifying property such as \"#order.id\";"
						+ " the method was not run");
			assertThat(service.calls()).hasValue(0);
			assertThat(redisKeys("*order*")).isEmpty();
		});
	}

	@Test
	void valuesWithoutAStableTextFailTheCall() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byValue(Calendar.getInstance()))
				.withMessageContaining(
						"evaluated to a java.util.GregorianCalendar, whose text depends on its time zone")
				.withMessageContaining("#calendar.toInstant()");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byValue(new AtomicLong(7)))
				.withMessageContaining("evaluated to a java.util.concurrent.atomic.AtomicLong, a mutable holder");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> service.byValue(Map.of("a", 1)))
				.withMessageContaining(", a map; lock on its keys");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byValue(List.of(List.of("a"), List.of("b"))))
				.withMessageContaining("has an element that is a java.util.ImmutableCollections$List12 inside a key"
						+ " value: only the key itself may be a collection or array");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byValue(Optional.of(Optional.of("a"))))
				.withMessageContaining("evaluated to an Optional inside an Optional");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byShipment(new Shipment("s-1", null)))
				.withMessageContaining("evaluated to a dev.distlock.aop.LockKeyValueTests$Shipment whose component"
						+ " 'due' is null");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> service.byValue(new Parcel(Optional.of(new Order(7)))))
				.withMessageContaining("evaluated to a dev.distlock.aop.LockKeyValueTests$Parcel whose component"
						+ " 'order' is a dev.distlock.aop.LockKeyValueTests$Order, whose toString() is Object's");
			assertThat(service.calls()).hasValue(0);
			assertThat(redisKeys("*value*")).isEmpty();
		});
	}

	@Test
	void parameterOfAFinalTypeWithoutAStableTextFailsTheStartup() {
		this.contextRunner.withBean("widgetService", WidgetService.class).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
			assertThat(failure).isInstanceOf(InvalidLockAnnotationException.class);
			assertThat(((InvalidLockAnnotationException) failure).getProblems()).satisfiesExactlyInAnyOrder(
					(problem) -> assertThat(problem).hasToString("@DistributedLock on WidgetService.paint(Widget) of"
							+ " bean 'widgetService', attribute 'key': '#widget' evaluates to a"
							+ " dev.distlock.aop.LockKeyValueTests$Widget, whose toString() is Object's: an identity"
							+ " hash code, which differs between equal values")
						.extracting(Problem::action)
						.asString()
						.startsWith("declare a toString() that states its identity, make it a record"),
					(problem) -> assertThat(problem.toString())
						.startsWith("@DistributedLock on WidgetService.paintAll(")
						.contains("'#p0' evaluates to elements each a dev.distlock.aop.LockKeyValueTests$Widget,"),
					(problem) -> assertThat(problem.toString()).startsWith("@DistributedLock on WidgetService.frame(")
						.contains("'#frame' evaluates to a dev.distlock.aop.LockKeyValueTests$Frame whose"
								+ " component 'widget' is a dev.distlock.aop.LockKeyValueTests$Widget,"));
		});
	}

	private static <T> T inZone(String zone, Supplier<T> call) {
		TimeZone defaultZone = TimeZone.getDefault();
		TimeZone.setDefault(TimeZone.getTimeZone(zone));
		try {
			return call.get();
		}
		finally {
			TimeZone.setDefault(defaultZone);
		}
	}

	private static List<String> redisKeys(String pattern) {
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			return client.sync().keys(pattern);
		}
	}

	private static TestLockRegistry rival() {
		return TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30));
	}

	@Configuration(proxyBeanMethods = false)
	static class ServicesConfiguration {

		@Bean
		KeyedService keyedService() {
			return new KeyedService();
		}

	}

	static class KeyedService {

		private final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(name = "item", key = "#id")
		public String byOptional(Optional<String> id) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "item", key = "#id", waitTime = "0s", onFailure = LockFailureAction.SKIP)
		public String skippingByOptional(Optional<String> id) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "item", key = "#ids")
		public String byOptionals(List<Optional<String>> ids) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "item", key = "#id", waitTime = "0s")
		public String byText(String id) {
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "batch", key = "#ids")
		public List<String> byIds(List<Integer> ids, Supplier<List<String>> whileLocked) {
			this.calls.incrementAndGet();
			return whileLocked.get();
		}

		@DistributedLock(name = "shipment", key = "#shipment", waitTime = "0s", onFailure = LockFailureAction.SKIP)
		public String byShipment(Shipment shipment) {
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "due", key = "#due")
		public String byDate(Date due) {
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "order", key = "#order")
		public String byOrder(Order order) {
			this.calls.incrementAndGet();
			return DistributedLockInterceptorTests.currentKey();
		}

		@DistributedLock(name = "value", key = "#value")
		public String byValue(Object value) {
			return DistributedLockInterceptorTests.currentKey();
		}

		AtomicInteger calls() {
			return this.calls;
		}

	}

	static class WidgetService {

		@DistributedLock(key = "#widget")
		public void paint(Widget widget) {
		}

		@DistributedLock(key = "#p0")
		public void paintAll(List<Widget> widgets) {
		}

		@DistributedLock(key = "#frame")
		public void frame(Frame frame) {
		}

	}

	record Shipment(String id, Date due) {

	}

	record Parcel(Optional<Order> order) {

	}

	record Frame(Widget widget) {

	}

	/**
	 * Equal by its id, without a toString() of its own; not final, so a subclass could
	 * declare one.
	 */
	static class Order {

		private final long id;

		Order(long id) {
			this.id = id;
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Order order && order.id == this.id;
		}

		@Override
		public int hashCode() {
			return Long.hashCode(this.id);
		}

	}

	static final class Widget {

	}

	enum Region {

		EU {

			@Override
			public String toString() {
				return "Europe";
			}

		}

	}

}
