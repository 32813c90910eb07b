package dev.distlock.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.DistributedLock;
import dev.distlock.LeaderOnly;
import dev.distlock.LockFailureAction;
import dev.distlock.LockMode;
import dev.distlock.aop.DistLockAdvisor;
import dev.distlock.aop.InvalidLockAnnotationException;
import dev.distlock.aop.ResolvedLockSpecs;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.annotation.AliasFor;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for {@link InvalidLockAnnotationFailureAnalyzer}: a {@link DistributedLock} that
 * cannot work as written fails the startup, and the analysis names the bean, the method,
 * the attribute and what to write instead.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class InvalidLockAnnotationFailureAnalyzerTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	@Test
	void keyThatIsNotValidSpelFailsStartup() {
		this.contextRunner.withBean("badKeyService", BadKeyService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("BadKeyService.pay(long)")
				.contains("bean 'badKeyService'")
				.contains("attribute 'key'")
				.contains("'#orderId +' is not a valid SpEL expression");
			assertThat(analysis.getAction()).contains("BadKeyService.pay(long), 'key'")
				.contains("write a SpEL expression over the parameters, such as \"#orderId\" or \"#p0\"");
		});
	}

	@Test
	void keyNamingAnUnknownParameterFailsStartup() {
		this.contextRunner.withBean("misspelledKeyService", MisspelledKeyService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("MisspelledKeyService.pay(long)")
				.contains("bean 'misspelledKeyService'")
				.contains("attribute 'key'")
				.contains("refers to #ordrId, which is not a parameter")
				.contains("(parameters: orderId)");
			assertThat(analysis.getAction()).contains("MisspelledKeyService.pay(long), 'key'")
				.contains("refer to a parameter by name")
				.contains("#p0");
		});
	}

	@Test
	void waitTimeThatIsNotADurationFailsStartup() {
		this.contextRunner.withBean("soonService", SoonService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("SoonService.pay(long)")
				.contains("bean 'soonService'")
				.contains("attribute 'waitTime'")
				.contains("'soon' is not a duration");
			assertThat(analysis.getAction()).contains("SoonService.pay(long), 'waitTime'")
				.contains("\"500ms\", \"5s\" or \"PT5S\"");
		});
	}

	@Test
	void negativeLeaseTimeFailsStartup() {
		this.contextRunner.withBean("negativeLeaseService", NegativeLeaseService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("NegativeLeaseService.pay(long)")
				.contains("bean 'negativeLeaseService'")
				.contains("attribute 'leaseTime'")
				.contains("'-1s' is negative");
			assertThat(analysis.getAction()).contains("NegativeLeaseService.pay(long), 'leaseTime'")
				.contains("use a positive duration such as \"5s\"");
		});
	}

	@Test
	void unresolvablePlaceholderFailsStartup() {
		this.contextRunner.withBean("placeholderService", MissingPlaceholderService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("MissingPlaceholderService.pay(long)")
				.contains("bean 'placeholderService'")
				.contains("attribute 'waitTime'")
				.contains("${nope}")
				.contains("Could not resolve placeholder 'nope'");
			assertThat(analysis.getAction()).contains("MissingPlaceholderService.pay(long), 'waitTime'")
				.contains("define the property or write the duration as a literal");
		});
	}

	@Test
	void nameWithAnExclamationMarkFailsStartup() {
		this.contextRunner.withBean("ordersService", ReservedCharacterService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("- @DistributedLock on ReservedCharacterService.pay(long)"
					+ " of bean 'ordersService', attribute 'name': Lock name 'orders!eu' contains '!',"
					+ " which is reserved for distlock's helper keys");
			assertThat(analysis.getAction()).contains("ReservedCharacterService.pay(long), 'name'")
				.contains("write a name without '!'");
		});
	}

	@Test
	void skipOnMethodReturningPrimitiveFailsStartup() {
		this.contextRunner.withBean("countingService", SkipOnPrimitiveService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("SkipOnPrimitiveService.count(String)")
				.contains("bean 'countingService'")
				.contains("attribute 'onFailure'")
				.contains("SKIP cannot return a value of primitive type int");
			assertThat(analysis.getAction()).contains("SkipOnPrimitiveService.count(String), 'onFailure'")
				.contains("use onFailure = THROW, or return a wrapper type such as Integer or Optional");
		});
	}

	@Test
	void everyProblemOfEveryBeanIsReportedAtOnce() {
		this.contextRunner.withBean("badKeyService", BadKeyService.class)
			.withBean("countingService", SkipOnPrimitiveService.class)
			.withBean("soonService", SoonService.class)
			.run((context) -> {
				FailureAnalysis analysis = analyzeStartupFailure(context);
				assertThat(analysis.getDescription()).startsWith("Invalid @DistributedLock annotations:")
					.contains("bean 'badKeyService'", "bean 'countingService'", "bean 'soonService'");
				assertThat(analysis.getAction()).startsWith("Correct the annotations:")
					.contains("BadKeyService.pay(long), 'key'", "SkipOnPrimitiveService.count(String), 'onFailure'",
							"SoonService.pay(long), 'waitTime'");
				System.out.println(report(analysis));
			});
	}

	@Test
	void limitThatIsNotAPositiveWholeNumberFailsStartup() {
		this.contextRunner.withBean("exportService", BadLimitService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).startsWith("Invalid @DistributedConcurrencyLimit annotations:")
				.contains("- @DistributedConcurrencyLimit on BadLimitService.export() of bean 'exportService',"
						+ " attribute 'limit': 'two' is not a positive whole number")
				.contains("- @DistributedConcurrencyLimit on BadLimitService.exportNone() of bean 'exportService',"
						+ " attribute 'limit': '0' is not a positive whole number");
			assertThat(analysis.getAction()).contains("BadLimitService.export(), 'limit': write how many calls may run"
					+ " at once, such as \"2\", or a ${...} placeholder that resolves to one");
		});
	}

	@Test
	void leaderOnlyNamingALeadershipThatIsNotCampaignedForFailsStartup() {
		this.contextRunner.withBean("reportJob", ReportJob.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).startsWith("Invalid @LeaderOnly annotations:")
				.contains("- @LeaderOnly on ReportJob.generate() of bean 'reportJob', attribute 'value': "
						+ "'report' is not a leadership this instance campaigns for");
			assertThat(analysis.getAction()).contains("ReportJob.generate(), 'value': add it to distlock.leader.names");
		});
	}

	@Test
	void limitWhosePlaceholderDoesNotResolveFailsStartup() {
		this.contextRunner.withBean("exportService", PlaceholderLimitService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("PlaceholderLimitService.export()")
				.contains("attribute 'limit'")
				.contains("Could not resolve placeholder 'exports.limit'");
			assertThat(analysis.getAction()).contains("PlaceholderLimitService.export(), 'limit'")
				.contains("define the property or write the limit as a number");
		});
	}

	@Test
	void limitFromAPlaceholderIsResolved() {
		this.contextRunner.withPropertyValues("exports.limit=3")
			.withBean("exportService", PlaceholderLimitService.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ResolvedLockSpecs spec = ResolvedLockSpecs.ofConcurrencyLimit(context,
						ReflectionUtils.findMethod(PlaceholderLimitService.class, "export"),
						PlaceholderLimitService.class);
				assertThat(spec.name()).isEqualTo("PlaceholderLimitService.export");
				assertThat(spec.permits()).isEqualTo(3);
			});
	}

	@Test
	void concurrencyLimitWithTheLockAnnotationsProblemsFailsStartup() {
		this.contextRunner.withBean("limitedService", BadLimitedMethodsService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription())
				.contains("- @DistributedConcurrencyLimit on BadLimitedMethodsService.count(String) of bean"
						+ " 'limitedService', attribute 'onFailure': SKIP cannot return a value of primitive type int")
				.contains("- @DistributedConcurrencyLimit on BadLimitedMethodsService.export(String) of bean"
						+ " 'limitedService', attribute 'key': '#regoin' refers to #regoin, which is not a parameter")
				.contains("- @DistributedConcurrencyLimit on BadLimitedMethodsService.exportSoon() of bean"
						+ " 'limitedService', attribute 'waitTime': 'soon' is not a duration");
			assertThat(analysis.getAction()).contains("BadLimitedMethodsService.count(String), 'onFailure'",
					"BadLimitedMethodsService.export(String), 'key'",
					"BadLimitedMethodsService.exportSoon(), 'waitTime'");
		});
	}

	@Test
	void concurrencyLimitNamedLikeALockFailsStartup() {
		this.contextRunner.withBean("reportService", LimitNamedLikeALockService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("- @DistributedConcurrencyLimit on"
					+ " LimitNamedLikeALockService.export() of bean 'reportService', attribute 'name': 'reports' is also"
					+ " the name of the @DistributedLock on LimitNamedLikeALockService.rebuild(); a semaphore and a"
					+ " lock of one name would share their fencing key and wait queue in Redis");
			assertThat(analysis.getAction()).contains("LimitNamedLikeALockService.export(), 'name': give the"
					+ " concurrency limit a name of its own, such as \"reports-limit\"");
		});
	}

	@Test
	void concurrencyLimitAndLockWithNamesOfTheirOwnOnOneMethodStartAndAreOrdered() {
		this.contextRunner.withBean("reportService", LimitedAndLockedService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("distlockConcurrencyLimitAdvisor", DistLockAdvisor.class).getOrder())
				.isEqualTo(context.getBean("distlockAdvisor", DistLockAdvisor.class).getOrder() - 1);
		});
	}

	@Test
	void sharedModeWithAFixedLeaseOrMinimumHoldTimeFailsStartup() {
		this.contextRunner.withBean("catalogService", SharedWithLeaseService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription())
				.contains("- @DistributedLock on SharedWithLeaseService.read() of bean 'catalogService', attribute"
						+ " 'leaseTime': mode = SHARED takes the read lock, which is renewed while held and has no"
						+ " fixed lease")
				.contains("attribute 'minHoldTime': mode = SHARED takes the read lock, which is released when the"
						+ " method returns and has no minimum hold time");
			assertThat(analysis.getAction())
				.contains("SharedWithLeaseService.read(), 'leaseTime': remove it, or use" + " mode = EXCLUSIVE");
		});
	}

	@Test
	void sharedModeOnAMethodWhoseResultCompletesLaterFailsStartup() {
		this.contextRunner.withBean("catalogService", SharedFutureService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("- @DistributedLock on SharedFutureService.read() of bean"
					+ " 'catalogService', attribute 'mode': mode = SHARED takes the read lock, which is owned by the"
					+ " calling thread, but CompletableFuture completes later, on another thread, which cannot"
					+ " release it");
			assertThat(analysis.getAction()).contains("SharedFutureService.read(), 'mode': return the result"
					+ " synchronously, or use mode = EXCLUSIVE");
		});
	}

	@Test
	void problemsOfBothAnnotationsAreReportedTogether() {
		this.contextRunner.withBean("badKeyService", BadKeyService.class)
			.withBean("exportService", BadLimitService.class)
			.run((context) -> assertThat(analyzeStartupFailure(context).getDescription())
				.startsWith("Invalid @DistributedLock and @DistributedConcurrencyLimit annotations:"));
	}

	@Test
	void placeholdersInGoodAnnotationAreResolved() {
		this.contextRunner.withPropertyValues("orders.lock-name=orders", "orders.wait=750ms", "orders.lease=20s")
			.withBean("placeholderService", ResolvedPlaceholderService.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ResolvedLockSpecs spec = ResolvedLockSpecs.ofLock(context,
						ReflectionUtils.findMethod(ResolvedPlaceholderService.class, "pay", long.class),
						ResolvedPlaceholderService.class);
				assertThat(spec.name()).isEqualTo("orders");
				assertThat(spec.waitTime()).isEqualTo(Duration.ofMillis(750));
				assertThat(spec.leaseTime()).isEqualTo(Duration.ofSeconds(20));
			});
	}

	@Test
	void metaAnnotationWithGoodAliasedKeyIsResolved() {
		this.contextRunner.withBean("paymentService", GoodPaymentLockService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ResolvedLockSpecs spec = ResolvedLockSpecs.ofLock(context,
					ReflectionUtils.findMethod(GoodPaymentLockService.class, "pay", long.class),
					GoodPaymentLockService.class);
			assertThat(spec.keySource()).isEqualTo("#orderId");
			assertThat(spec.waitTime()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void metaAnnotationWithBadAliasedKeyFailsStartup() {
		this.contextRunner.withBean("paymentService", BadPaymentLockService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).contains("BadPaymentLockService.pay(long)")
				.contains("bean 'paymentService'")
				.contains("attribute 'key'")
				.contains("refers to #ordrId");
			assertThat(analysis.getAction()).contains("BadPaymentLockService.pay(long), 'key'");
		});
	}

	@Test
	void badAnnotationOnBeanProxiedThroughItsInterfaceFailsStartup() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean("paymentsService", Payments.class, BadKeyPayments::new)
			.run((context) -> {
				FailureAnalysis analysis = analyzeStartupFailure(context);
				assertThat(analysis.getDescription()).contains("BadKeyPayments.pay(long)")
					.contains("bean 'paymentsService'")
					.contains("attribute 'key'");
			});
	}

	@Test
	void springBootReportsTheStartupFailureThroughTheAnalyzer(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BadKeyApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException()
			.isThrownBy(() -> application.run("--spring.data.redis.host=127.0.0.1",
					"--spring.data.redis.port=" + redis.server().port(), "--spring.main.banner-mode=off"))
			.satisfies((ex) -> assertThat(NestedExceptionUtils.getMostSpecificCause(ex))
				.isInstanceOf(InvalidLockAnnotationException.class));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid @DistributedLock annotations:")
			.contains("- @DistributedLock on BadKeyService.pay(long) of bean 'badKeyService', attribute 'key'")
			.contains("Correct the annotations:");
	}

	private static FailureAnalysis analyzeStartupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
			.isInstanceOf(InvalidLockAnnotationException.class);
		FailureAnalysis analysis = new InvalidLockAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).isNotNull();
		assertThat(analysis.getCause()).isInstanceOf(InvalidLockAnnotationException.class);
		return analysis;
	}

	private static String report(FailureAnalysis analysis) {
		String eol = System.lineSeparator();
		return eol + "***************************" + eol + "APPLICATION FAILED TO START" + eol
				+ "***************************" + eol + eol + "Description:" + eol + eol + analysis.getDescription()
				+ eol + eol + "Action:" + eol + eol + analysis.getAction() + eol;
	}

	static class ReportJob {

		@LeaderOnly("report")
		public void generate() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
			DistLockInterceptionAutoConfiguration.class })
	static class BadKeyApplication {

		@Bean
		BadKeyService badKeyService() {
			return new BadKeyService();
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(name = "payment", waitTime = "1s")
	@interface PaymentLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String key() default "";

	}

	static class BadKeyService {

		@DistributedLock(key = "#orderId +")
		public void pay(long orderId) {
		}

	}

	static class MisspelledKeyService {

		@DistributedLock(key = "#ordrId")
		public void pay(long orderId) {
		}

	}

	static class SoonService {

		@DistributedLock(waitTime = "soon")
		public void pay(long orderId) {
		}

	}

	static class NegativeLeaseService {

		@DistributedLock(leaseTime = "-1s")
		public void pay(long orderId) {
		}

	}

	static class MissingPlaceholderService {

		@DistributedLock(waitTime = "${nope}")
		public void pay(long orderId) {
		}

	}

	static class ReservedCharacterService {

		@DistributedLock(name = "orders!eu", key = "#orderId")
		public void pay(long orderId) {
		}

	}

	static class SkipOnPrimitiveService {

		@DistributedLock(onFailure = LockFailureAction.SKIP)
		public int count(String day) {
			return 0;
		}

	}

	static class BadLimitService {

		@DistributedConcurrencyLimit(limit = "two")
		public void export() {
		}

		@DistributedConcurrencyLimit(limit = "0")
		public void exportNone() {
		}

	}

	static class PlaceholderLimitService {

		@DistributedConcurrencyLimit(limit = "${exports.limit}")
		public void export() {
		}

	}

	static class BadLimitedMethodsService {

		@DistributedConcurrencyLimit(limit = "2", onFailure = LockFailureAction.SKIP)
		public int count(String day) {
			return 0;
		}

		@DistributedConcurrencyLimit(limit = "2", key = "#regoin")
		public void export(String region) {
		}

		@DistributedConcurrencyLimit(limit = "2", waitTime = "soon")
		public void exportSoon() {
		}

	}

	static class LimitNamedLikeALockService {

		@DistributedConcurrencyLimit(name = "reports", limit = "2")
		public void export() {
		}

		@DistributedLock(name = "reports")
		public void rebuild() {
		}

	}

	static class LimitedAndLockedService {

		@DistributedConcurrencyLimit(name = "exports", limit = "2")
		@DistributedLock(name = "export-files")
		public void export() {
		}

	}

	static class SharedWithLeaseService {

		@DistributedLock(name = "catalog", mode = LockMode.SHARED, leaseTime = "10s", minHoldTime = "1s")
		public String read() {
			return "";
		}

	}

	static class SharedFutureService {

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		public CompletableFuture<String> read() {
			return CompletableFuture.completedFuture("");
		}

	}

	static class ResolvedPlaceholderService {

		@DistributedLock(name = "${orders.lock-name}", key = "#orderId", waitTime = "${orders.wait}",
				leaseTime = "${orders.lease}")
		public Optional<String> pay(long orderId) {
			return Optional.empty();
		}

	}

	static class GoodPaymentLockService {

		@PaymentLock(key = "#orderId")
		public void pay(long orderId) {
		}

	}

	static class BadPaymentLockService {

		@PaymentLock(key = "#ordrId")
		public void pay(long orderId) {
		}

	}

	interface Payments {

		void pay(long orderId);

	}

	static class BadKeyPayments implements Payments {

		@Override
		@DistributedLock(key = "#ordrId")
		public void pay(long orderId) {
		}

	}

}
