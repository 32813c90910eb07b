package dev.distlock.aop

import java.time.Duration
import java.util.Optional
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

import dev.distlock.DistributedLock
import dev.distlock.LockContext
import dev.distlock.LockFailureAction
import dev.distlock.LockLease
import dev.distlock.LockLostException
import dev.distlock.LockRegistry
import dev.distlock.autoconfigure.DistLockAutoConfiguration
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration
import dev.distlock.context.LockContextElement
import dev.distlock.testsupport.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
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
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/**
 * Kotlin `suspend` functions annotated with [DistributedLock] hold their locks until they
 * complete, across every suspension, run with their lease in [LockContext] on whatever
 * thread they resume, and are cancelled when their lock is lost; cancelling the caller
 * releases the lock. Against a real `redis-server`.
 */
@Timeout(60)
class SuspendingFunctionLockingTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				DistLockAutoConfiguration::class.java, DistLockInterceptionAutoConfiguration::class.java))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s")
		.withUserConfiguration(CoroutineConfiguration::class.java)

	private val locks = RedisLocks(redis.server())

	@Test
	fun twoCoroutinesOnTheSameLockExcludeEachOtherAcrossTheirSuspensions() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			val runs = (1..2).map { async(Dispatchers.Default) { service.compile("daily") } }.awaitAll()
			assertThat(runs).hasSize(2)
			assertThat(context.getBean(ReportState::class.java).mostAtOnce).hasValue(1)
			assertThat(runs[0]).isNotEqualTo(runs[1])
			assertThat(locks.keys("lock:compile:*")).isEmpty()
		}
	}

	@Test
	fun lockIsHeldUntilTheFunctionCompletesNotUntilItsFirstSuspension() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			val release = CompletableDeferred<Unit>()
			val publishing = async(Dispatchers.Default) { service.publish(release) }
			context.getBean(ReportState::class.java).suspendedTwice.await()
			assertThat(locks.keys("lock:publish")).hasSize(1)
			assertThat(context.getBean(LockRegistry::class.java).tryAcquire("publish", Duration.ZERO)).isEmpty()
			release.complete(Unit)
			assertThat(publishing.await()).isEqualTo("published")
			assertThat(locks.keys("lock:publish")).isEmpty()
		}
	}

	@Test
	fun lockContextGivesTheFencingTokenOnEveryThreadTheCoroutineRunsOn() {
		val writer = Executors.newSingleThreadExecutor { task -> Thread(task, "report-writer") }
		try {
			inContext { context ->
				val service = context.getBean(Reports::class.java)
				val seen = withContext(Dispatchers.Default) { service.leasesSeen(writer.asCoroutineDispatcher()) }
				assertThat(seen.keys).anySatisfy { thread -> assertThat(thread).startsWith("report-writer") }
				assertThat(seen.values.toSet()).singleElement().satisfies({ lease ->
					assertThat(lease.name()).isEqualTo("context")
					assertThat(lease.fencingToken().toString()).isEqualTo(locks.get("{lock:context}!fence"))
				})
				assertThat(context.getBean(ReportState::class.java).nestedLeases).containsExactly("nested", "context")
				assertThat(LockContext.currentLease()).isEmpty()
				assertThat(writer.submit<Optional<LockLease>>(LockContext::currentLease).get()).isEmpty()
			}
		}
		finally {
			writer.shutdown()
		}
	}

	@Test
	fun lostLockCancelsTheCoroutineAndTheCallerGetsTheLoss() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			val state = context.getBean(ReportState::class.java)
			val watching = async(Dispatchers.Default) { runCatching { service.watch() }.exceptionOrNull() }
			state.watching.await()
			locks.takeOver(context, "lock:watch")
			assertThat(watching.await()).isInstanceOf(LockLostException::class.java)
				.hasMessageContaining("Lock 'watch' was lost while held")
			assertThat(state.watchCancelled.await()).isInstanceOf(CancellationException::class.java)
			assertThat(locks.get("lock:watch")).isEqualTo("someone-else")
		}
	}

	@Test
	fun cancellingTheCallerCancelsTheCoroutineAndReleasesTheLock() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			val state = context.getBean(ReportState::class.java)
			val watching = launch(Dispatchers.Default) { service.watch() }
			state.watching.await()
			watching.cancelAndJoin()
			assertThat(state.watchCancelled.await()).isInstanceOf(CancellationException::class.java)
			await().atMost(Duration.ofSeconds(10)).until { locks.keys("lock:watch").isEmpty() }
		}
	}

	@Test
	fun functionThatSkipsReturnsNullOrUnitWithoutRunningWhileTheLockIsHeldElsewhere() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			val state = context.getBean(ReportState::class.java)
			context.getBean(LockRegistry::class.java).acquire("archive", Duration.ZERO).use {
				assertThat(service.archive()).isNull()
				service.purge()
			}
			assertThat(state.skippableRuns).hasValue(0)
			assertThat(service.archive()).isEqualTo("archived")
			assertThat(state.skippableRuns).hasValue(1)
		}
	}

	@Test
	fun functionReturningAFlowHoldsTheLockFromCollectionUntilTheFlowCompletes() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			val feedGoesOn = CompletableDeferred<Unit>()
			val collected = service.feed(feedGoesOn).onEach { value ->
				if (value == 1) {
					assertThat(locks.keys("lock:feed")).hasSize(1)
					feedGoesOn.complete(Unit)
				}
			}.toList()
			assertThat(collected).containsExactly(1, 2)
			assertThat(locks.keys("lock:feed")).isEmpty()
		}
	}

	@Test
	fun lockContextElementCarriesTheLeasesOfALockedMethodIntoACoroutineItStarts() {
		inContext { context ->
			val service = context.getBean(Reports::class.java)
			assertThat(service.leaseInStartedCoroutine()).isEqualTo("started")
		}
	}

	private fun inContext(test: suspend CoroutineScope.(AssertableApplicationContext) -> Unit) {
		contextRunner.run { context -> runBlocking { withTimeout(30_000) { test(context) } } }
	}

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

	}

	@Configuration(proxyBeanMethods = false)
	class CoroutineConfiguration {

		@Bean
		fun ledger(): Ledger = Ledger()

		@Bean
		fun reportState(): ReportState = ReportState()

		@Bean
		fun reports(ledger: Ledger, state: ReportState): Reports = Reports(ledger, state)

	}

	open class Ledger {

		@DistributedLock(name = "nested")
		open fun record(): List<String> = LockContext.leases().map(LockLease::name)

	}

	/**
	 * What the locked functions of [Reports] saw and did, outside the proxy.
	 */
	class ReportState {

		val inside = AtomicInteger()

		val mostAtOnce = AtomicInteger()

		val suspendedTwice = CompletableDeferred<Unit>()

		@Volatile
		var nestedLeases = listOf<String>()

		val watching = CompletableDeferred<Unit>()

		val watchCancelled = CompletableDeferred<Throwable>()

		val skippableRuns = AtomicInteger()

	}

	open class Reports(private val ledger: Ledger, private val state: ReportState) {

		@DistributedLock(name = "compile", key = "#name", waitTime = "10s")
		open suspend fun compile(name: String): Long {
			state.mostAtOnce.accumulateAndGet(state.inside.incrementAndGet(), ::maxOf)
			delay(100)
			withContext(Dispatchers.IO) { delay(100) }
			state.inside.decrementAndGet()
			return LockContext.currentLease().orElseThrow().fencingToken()
		}

		@DistributedLock(name = "publish")
		open suspend fun publish(release: CompletableDeferred<Unit>): String {
			delay(10)
			withContext(Dispatchers.IO) { delay(10) }
			state.suspendedTwice.complete(Unit)
			release.await()
			return "published"
		}

		@DistributedLock(name = "context")
		open suspend fun leasesSeen(writer: CoroutineDispatcher): Map<String, LockLease> {
			val seen = mutableMapOf(current())
			delay(10)
			seen += current()
			seen += withContext(writer) { current() }
			state.nestedLeases = ledger.record()
			return seen
		}

		@DistributedLock(name = "watch")
		open suspend fun watch() {
			state.watching.complete(Unit)
			try {
				awaitCancellation()
			}
			catch (ex: CancellationException) {
				state.watchCancelled.complete(ex)
				throw ex
			}
		}

		@DistributedLock(name = "archive", onFailure = LockFailureAction.SKIP)
		open suspend fun archive(): String? {
			delay(1)
			state.skippableRuns.incrementAndGet()
			return "archived"
		}

		@DistributedLock(name = "archive", onFailure = LockFailureAction.SKIP)
		open suspend fun purge() {
			delay(1)
			state.skippableRuns.incrementAndGet()
		}

		@DistributedLock(name = "feed")
		open suspend fun feed(goesOn: CompletableDeferred<Unit>): Flow<Int> = flow {
			emit(1)
			goesOn.await()
			emit(2)
		}

		@DistributedLock(name = "started")
		open fun leaseInStartedCoroutine(): String = runBlocking(Dispatchers.IO + LockContextElement()) {
			delay(1)
			LockContext.currentLease().orElseThrow().name()
		}

		private fun current(): Pair<String, LockLease> =
			Thread.currentThread().name to LockContext.currentLease().orElseThrow()

	}

}
