package dev.distlock.aop

import dev.distlock.DistributedLock
import dev.distlock.LockFailureAction
import dev.distlock.autoconfigure.DistLockAutoConfiguration
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration
import dev.distlock.testsupport.RedisServerExtension
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension

import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.core.NestedExceptionUtils

/**
 * The startup check of [DistributedLock] annotations on Kotlin `suspend` functions: their
 * continuation is no parameter a key may name, and `onFailure = SKIP`, which makes a
 * skipped call return `null`, needs a result that may be `null`.
 */
@Timeout(30)
class SuspendingFunctionValidationTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				DistLockAutoConfiguration::class.java, DistLockInterceptionAutoConfiguration::class.java))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port())

	@Test
	fun suspendFunctionsThatSkipWithUnitNullableOrFlowResultsAndKeysOnTheirParametersStart() {
		contextRunner.withBean("jobs", ValidJobs::class.java).run { context ->
			assertThat(context).hasNotFailed()
		}
	}

	@Test
	fun skipOnANonNullResultAndAKeyOnTheContinuationFailTheStartup() {
		contextRunner.withBean("jobs", InvalidJobs::class.java).run { context ->
			assertThat(context).hasFailed()
			val failure = NestedExceptionUtils.getMostSpecificCause(context.startupFailure!!)
			assertThat(failure).isInstanceOf(InvalidLockAnnotationException::class.java)
			assertThat((failure as InvalidLockAnnotationException).problems.map { it.toString() })
				.containsExactlyInAnyOrder(
						"@DistributedLock on InvalidJobs.total(Continuation) of bean 'jobs', attribute 'onFailure':"
								+ " SKIP returns null from a suspend function, and its result type String is not nullable",
						"@DistributedLock on InvalidJobs.byOrder(String, Continuation) of bean 'jobs', attribute 'key':"
								+ " '#p1' refers to #p1, which is not a parameter of InvalidJobs.byOrder(String,"
								+ " Continuation) (parameters: order)")
		}
	}

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	open class ValidJobs {

		@DistributedLock(onFailure = LockFailureAction.SKIP)
		open suspend fun purge() {
		}

		@DistributedLock(onFailure = LockFailureAction.SKIP)
		open suspend fun latest(): String? = null

		@DistributedLock(onFailure = LockFailureAction.SKIP)
		open suspend fun feed(): Flow<Int> = flowOf(1)

		@DistributedLock(key = "#order + #p0")
		open suspend fun byOrder(order: String): String = order

	}

	open class InvalidJobs {

		@DistributedLock(onFailure = LockFailureAction.SKIP)
		open suspend fun total(): String = "0"

		@DistributedLock(key = "#p1")
		open suspend fun byOrder(order: String): String = order

	}

}
