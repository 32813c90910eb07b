package dev.distlock.aop

import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

import dev.distlock.LeaderOnly
import dev.distlock.LockRegistry
import dev.distlock.autoconfigure.DistLockAutoConfiguration
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration
import dev.distlock.autoconfigure.DistLockLeadershipAutoConfiguration
import dev.distlock.testsupport.RedisServerExtension
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension

import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * Kotlin `suspend` functions annotated with [LeaderOnly] run on the instance that leads
 * and are skipped on the other, returning `null` (or nothing), as a reactive result
 * would be: the decision is taken when the function's coroutine runs. Against a real
 * `redis-server`, with two application instances.
 */
@Timeout(60)
class LeaderOnlySuspendingFunctionTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				DistLockAutoConfiguration::class.java, DistLockInterceptionAutoConfiguration::class.java,
				DistLockLeadershipAutoConfiguration::class.java))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s", "distlock.leader.names=digest")
		.withBean(Digests::class.java)

	@Test
	fun suspendFunctionsRunOnTheLeaderAndAreSkippedOnTheStandby() {
		contextRunner.run { leader ->
			awaitLeading(leader)
			contextRunner.run { standby ->
				assertThat(standby).hasNotFailed()
				val led = leader.getBean(Digests::class.java)
				val skipped = standby.getBean(Digests::class.java)
				runBlocking {
					withTimeout(10_000) {
						assertThat(led.compose()).isEqualTo("digest")
						led.send()
						assertThat(skipped.compose()).isNull()
						skipped.send()
					}
				}
				assertThat(led.runs).hasValue(2)
				assertThat(skipped.runs).hasValue(0)
			}
		}
	}

	private fun awaitLeading(context: AssertableApplicationContext) {
		assertThat(context).hasNotFailed()
		val leadership = context.getBean(LockRegistry::class.java).leadership("digest")
		await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader)
	}

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	/**
	 * A digest that only the leader of `digest` composes and sends, counting the runs.
	 */
	open class Digests {

		open val runs = AtomicInteger()

		@LeaderOnly("digest")
		open suspend fun compose(): String? {
			delay(1)
			runs.incrementAndGet()
			return "digest"
		}

		@LeaderOnly("digest")
		open suspend fun send() {
			delay(1)
			runs.incrementAndGet()
		}

	}

}
