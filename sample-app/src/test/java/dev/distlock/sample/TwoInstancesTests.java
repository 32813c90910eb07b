package dev.distlock.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import dev.distlock.fencing.RedisFence;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.sample.accounts.Balance;
import dev.distlock.sample.catalog.CatalogSnapshot;
import dev.distlock.sample.cleanup.CleanupJob;
import dev.distlock.sample.cleanup.CleanupRun;
import dev.distlock.sample.export.CatalogExport;
import dev.distlock.sample.inventory.StockLevel;
import dev.distlock.sample.report.DailyReport;
import dev.distlock.sample.report.DailyReports;
import dev.distlock.sample.summary.StockSummary;
import dev.distlock.sample.summary.StockSummaryJob;
import dev.distlock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample application, each with its own context, Redis connections
 * and lock registry, serving HTTP on their own ports against one real
 * {@code redis-server}, as two nodes of a deployment would.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TwoInstancesTests {

	private static final Duration CLEANUP_MIN_HOLD = Duration.ofMillis(300);

	/**
	 * How much earlier than the minimum hold time a run may appear to start after the one
	 * before: the hold is counted from when the acquiring command was sent, the start
	 * time is taken a moment after its answer.
	 */
	private static final Duration START_TIME_TOLERANCE = Duration.ofMillis(50);

	private static @Nullable RedisServer redis;

	private static @Nullable SampleInstance a;

	private static @Nullable SampleInstance b;

	@BeforeAll
	static void startRedisAndTwoInstances() throws Exception {
		try {
			redis = RedisServer.start();
			String[] properties = { "sample.cleanup.interval=200ms",
					"sample.cleanup.min-hold=" + CLEANUP_MIN_HOLD.toMillis() + "ms", "sample.exports.duration=300ms",
					"sample.summary.interval=200ms" };
			a = SampleInstance.start("a", redis.port(), properties);
			b = SampleInstance.start("b", redis.port(), properties);
		}
		catch (Exception ex) {
			stopInstancesAndRedis();
			throw ex;
		}
	}

	@AfterAll
	static void stopInstancesAndRedis() throws Exception {
		SampleInstance.closeAll(b, a, redis);
	}

	@Test
	void concurrentReservationsOnTwoInstancesLoseNoUpdate() throws Exception {
		a().http().put().uri("/inventory/widget?stock=1000").retrieve().toBodilessEntity();
		List<Callable<List<Long>>> clients = new ArrayList<>();
		for (SampleInstance instance : List.of(a(), b())) {
			for (int thread = 0; thread < 8; thread++) {
				clients.add(() -> {
					List<Long> remaining = new ArrayList<>();
					for (int i = 0; i < 25; i++) {
						remaining.add(instance.http()
							.post()
							.uri("/inventory/widget/reserve?quantity=1")
							.retrieve()
							.body(StockLevel.class)
							.stock());
					}
					return remaining;
				});
			}
		}
		List<Long> remaining = runConcurrently(clients).stream().flatMap(List::stream).toList();
		assertThat(remaining).hasSize(400)
			.doesNotHaveDuplicates()
			.allSatisfy((stock) -> assertThat(stock).isBetween(600L, 999L));
		assertThat(b().http().get().uri("/inventory/widget").retrieve().body(StockLevel.class))
			.isEqualTo(new StockLevel("widget", 600));
	}

	@Test
	void reservationBeyondTheStockIsRefusedAndChangesNothing() {
		a().http().put().uri("/inventory/gadget?stock=3").retrieve().toBodilessEntity();
		ResponseEntity<Map<String, Object>> refused = b().answer(HttpMethod.POST,
				"/inventory/gadget/reserve?quantity=4");
		assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
		assertThat(refused.getBody()).containsEntry("detail", "Cannot reserve 4 of 'gadget': 3 left");
		assertThat(a().http().get().uri("/inventory/gadget").retrieve().body(StockLevel.class).stock()).isEqualTo(3);
	}

	@Test
	void reservationWhileAnotherInstanceHoldsTheSkuAnswersServiceUnavailableAfterTheWaitTime() {
		a().http().put().uri("/inventory/held?stock=10").retrieve().toBodilessEntity();
		try (LockLease lease = a().bean(LockRegistry.class).acquire("inventory:held", Duration.ZERO)) {
			long started = System.nanoTime();
			ResponseEntity<Map<String, Object>> busy = b().answer(HttpMethod.POST, "/inventory/held/reserve");
			assertThat(busy.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
			assertThat(busy.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
			assertThat(lease.isValid()).isTrue();
		}
		assertThat(b().http().post().uri("/inventory/held/reserve").retrieve().body(StockLevel.class).stock())
			.isEqualTo(9);
	}

	@Test
	void transfersInEveryDirectionOnTwoInstancesConserveMoneyAndNeverDeadlock() throws Exception {
		List<String> accounts = List.of("alice", "bob", "carol");
		for (String account : accounts) {
			a().http().put().uri("/accounts/{id}?balance=10000", account).retrieve().toBodilessEntity();
		}
		Map<String, AtomicLong> expected = new ConcurrentHashMap<>();
		accounts.forEach((account) -> expected.put(account, new AtomicLong(10_000)));
		List<Callable<Void>> clients = new ArrayList<>();
		for (SampleInstance instance : List.of(a(), b())) {
			for (int thread = 0; thread < 4; thread++) {
				Random random = new Random(clients.size());
				clients.add(() -> {
					for (int i = 0; i < 25; i++) {
						int from = random.nextInt(3);
						String debited = accounts.get(from);
						String credited = accounts.get((from + 1 + random.nextInt(2)) % 3);
						long amount = 1 + random.nextInt(10);
						instance.http()
							.post()
							.uri("/accounts/transfer?from={from}&to={to}&amount={amount}", debited, credited, amount)
							.retrieve()
							.toBodilessEntity();
						expected.get(debited).addAndGet(-amount);
						expected.get(credited).addAndGet(amount);
					}
					return null;
				});
			}
		}
		runConcurrently(clients);
		long total = 0;
		for (String account : accounts) {
			Balance balance = b().http().get().uri("/accounts/{id}", account).retrieve().body(Balance.class);
			assertThat(balance.balance()).as(account).isEqualTo(expected.get(account).get());
			total += balance.balance();
		}
		assertThat(total).isEqualTo(30_000);
	}

	@Test
	void stockSummaryIsWrittenByTheLeaderOnlyAndServedByEitherInstance() {
		await().atMost(Duration.ofSeconds(10)).until(() -> leads(a()) || leads(b()));
		SampleInstance leader = leads(a()) ? a() : b();
		String leaderId = leader.property("sample.instance-id");
		long term = leader.bean(LockRegistry.class).leadership(StockSummaryJob.LEADERSHIP).fencingToken().orElseThrow();
		StockSummaryJob summaries = a().bean(StockSummaryJob.class);
		Set<Instant> written = new HashSet<>();
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
			summaries.latest().ifPresent((summary) -> {
				assertThat(summary.writtenBy()).as("writer of %s", summary).isEqualTo(leaderId);
				assertThat(summary.fencingToken()).as("term of %s", summary).isEqualTo(term);
				written.add(summary.writtenAt());
			});
			return written.size() >= 5;
		});
		assertThat(leads(a()) && leads(b())).isFalse();
		StockSummary served = b().http().get().uri("/reports/summary").retrieve().body(StockSummary.class);
		assertThat(served).isNotNull().extracting(StockSummary::writtenBy).isEqualTo(leaderId);
	}

	@Test
	void scheduledCleanupNeverRunsOnBothInstancesAtOnce() {
		StringRedisTemplate redisTemplate = a().bean(StringRedisTemplate.class);
		redisTemplate.delete(CleanupJob.RUNS_KEY);
		await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> redisTemplate.opsForList().size(CleanupJob.RUNS_KEY), (size) -> size != null && size >= 10);
		List<CleanupRun> runs = redisTemplate.opsForList()
			.range(CleanupJob.RUNS_KEY, 0, -1)
			.stream()
			.map(CleanupRun::parse)
			.toList();
		for (int i = 1; i < runs.size(); i++) {
			CleanupRun previous = runs.get(i - 1);
			CleanupRun run = runs.get(i);
			assertThat(run.fencingToken()).as("token of run %d", i).isGreaterThan(previous.fencingToken());
			assertThat(run.startedAt()).as("start of run %d", i).isAfterOrEqualTo(previous.finishedAt());
			assertThat(Duration.between(previous.startedAt(), run.startedAt()))
				.as("time between runs %d and %d", i - 1, i)
				.isGreaterThanOrEqualTo(CLEANUP_MIN_HOLD.minus(START_TIME_TOLERANCE));
		}
		assertThat(runs).extracting(CleanupRun::instance).isSubsetOf("a", "b");
		assertThat(a().http().get().uri("/cleanup/runs?limit=3").retrieve().body(CleanupRun[].class)).hasSize(3);
	}

	@Test
	void dailyReportsCarryIncreasingTokensAndAStalledHoldersLateWriteIsRejected() throws Exception {
		List<Callable<DailyReport>> writers = new ArrayList<>();
		for (SampleInstance instance : List.of(a(), b())) {
			for (int thread = 0; thread < 4; thread++) {
				writers.add(() -> instance.http().post().uri("/reports/daily").retrieve().body(DailyReport.class));
			}
		}
		List<DailyReport> written = runConcurrently(writers);
		long highest = written.stream().mapToLong(DailyReport::fencingToken).max().orElseThrow();
		assertThat(written).extracting(DailyReport::fencingToken).doesNotHaveDuplicates();
		assertThat(a().http().get().uri("/reports/daily").retrieve().body(DailyReport.class).fencingToken())
			.isEqualTo(highest);

		LockLease stalled = a().bean(LockRegistry.class)
			.tryAcquire(DailyReports.LOCK, Duration.ofSeconds(2), LeaseOptions.fixed(Duration.ofMillis(200)))
			.orElseThrow();
		await().atMost(Duration.ofSeconds(2)).until(() -> !stalled.isValid());
		DailyReport next = b().http().post().uri("/reports/daily").retrieve().body(DailyReport.class);
		assertThat(next.fencingToken()).isGreaterThan(stalled.fencingToken());
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> a().bean(RedisFence.class)
				.write(DailyReports.LOCK, stalled.fencingToken(), DailyReports.REPORT_KEY, "stalled"))
			.satisfies((ex) -> {
				assertThat(ex.getFencingToken()).isEqualTo(stalled.fencingToken());
				assertThat(ex.getHighestToken()).isEqualTo(next.fencingToken());
			});
		assertThatExceptionOfType(LockLostException.class).isThrownBy(stalled::release);
		assertThat(a().http().get().uri("/reports/daily").retrieve().body(DailyReport.class)).isEqualTo(next);
	}

	@Test
	void healthIsUpAndTheDistlockEndpointIsExposed() {
		for (SampleInstance instance : List.of(a(), b())) {
			Map<String, Object> health = instance.http()
				.get()
				.uri("/actuator/health")
				.retrieve()
				.body(new ParameterizedTypeReference<>() {
				});
			assertThat(health).containsEntry("status", "UP");
			Map<String, Object> locks = instance.http()
				.get()
				.uri("/actuator/distlock")
				.retrieve()
				.body(new ParameterizedTypeReference<>() {
				});
			assertThat(locks).containsKey("locks");
		}
	}

	@Test
	void metricsAndPrometheusEndpointsShowTheWaitTimerOfTheLocksTaken() {
		a().http().put().uri("/inventory/metered?stock=5").retrieve().toBodilessEntity();
		a().http().post().uri("/inventory/metered/reserve").retrieve().toBodilessEntity();
		Metric wait = a().http()
			.get()
			.uri("/actuator/metrics/distlock.wait?tag=name:inventory&tag=result:acquired")
			.retrieve()
			.body(Metric.class);
		assertThat(wait.name()).isEqualTo("distlock.wait");
		assertThat(wait.measurements()).filteredOn((sample) -> sample.statistic().equals("COUNT"))
			.singleElement()
			.satisfies((count) -> assertThat(count.value()).isGreaterThanOrEqualTo(1));
		String scraped = a().http().get().uri("/actuator/prometheus").retrieve().body(String.class);
		assertThat(scraped)
			.containsPattern("(?m)^distlock_wait_seconds_count\\{name=\"inventory\",result=\"acquired\"\\} ");
	}

	@Test
	void catalogueReadersOnTwoInstancesNeverSeeAReplacementHalfDone() throws Exception {
		a().http().put().uri("/catalog").body(pricesAll(0)).retrieve().toBodilessEntity();
		List<Callable<List<CatalogSnapshot>>> clients = new ArrayList<>();
		for (SampleInstance instance : List.of(a(), b())) {
			long first = (instance == a()) ? 1 : 1001;
			clients.add(() -> {
				List<CatalogSnapshot> replaced = new ArrayList<>();
				for (long price = first; price < first + 15; price++) {
					replaced.add(instance.http()
						.put()
						.uri("/catalog")
						.body(pricesAll(price))
						.retrieve()
						.body(CatalogSnapshot.class));
				}
				return replaced;
			});
			for (int reader = 0; reader < 3; reader++) {
				clients.add(() -> {
					List<CatalogSnapshot> read = new ArrayList<>();
					for (int i = 0; i < 15; i++) {
						read.add(instance.http().get().uri("/catalog").retrieve().body(CatalogSnapshot.class));
					}
					return read;
				});
			}
		}
		List<CatalogSnapshot> snapshots = runConcurrently(clients).stream().flatMap(List::stream).toList();
		assertThat(snapshots).hasSize(120).allSatisfy((snapshot) -> {
			assertThat(snapshot.prices()).as("every product of one replacement").hasSize(4);
			assertThat(snapshot.prices().values()).as("prices of one replacement")
				.containsOnly(snapshot.prices().values().iterator().next());
		});
		assertThat(snapshots.stream().map(CatalogSnapshot::revision).filter((revision) -> revision > 0).distinct())
			.as("30 replacements, each a revision of its own")
			.hasSizeGreaterThanOrEqualTo(30);
	}

	@Test
	void exportsOnTwoInstancesNeverRunMoreThanTheLimitAtOnceAndCallsBeyondItAreRefused() throws Exception {
		a().http().put().uri("/catalog").body(pricesAll(5)).retrieve().toBodilessEntity();
		AtomicInteger refused = new AtomicInteger();
		List<Callable<List<CatalogExport>>> clients = new ArrayList<>();
		for (SampleInstance instance : List.of(a(), b())) {
			for (int client = 0; client < 3; client++) {
				clients.add(() -> {
					List<CatalogExport> exports = new ArrayList<>();
					while (exports.size() < 2) {
						ResponseEntity<Map<String, Object>> answer = instance.answer(HttpMethod.POST,
								"/catalog/exports");
						if (answer.getStatusCode() == HttpStatus.SERVICE_UNAVAILABLE) {
							assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
							refused.incrementAndGet();
							Thread.sleep(20);
						}
						else {
							assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.OK);
							exports.add(export(answer.getBody()));
						}
					}
					return exports;
				});
			}
		}
		List<CatalogExport> exports = runConcurrently(clients).stream().flatMap(List::stream).toList();
		assertThat(exports).hasSize(12)
			.allSatisfy((export) -> assertThat(export.running()).isBetween(1L, 2L))
			.anySatisfy((export) -> assertThat(export.running()).isEqualTo(2));
		assertThat(exports).map(CatalogExport::csv).containsOnly("a,5\nb,5\nc,5\nd,5");
		assertThat(refused).as("calls beyond the limit of 2").hasPositiveValue();
	}

	private static CatalogExport export(@Nullable Map<String, Object> body) {
		assertThat(body).isNotNull();
		return new CatalogExport((String) body.get("instance"), ((Number) body.get("running")).longValue(),
				((Number) body.get("fencingToken")).longValue(), (String) body.get("csv"));
	}

	private static Map<String, Long> pricesAll(long price) {
		return Map.of("a", price, "b", price, "c", price, "d", price);
	}

	/**
	 * Return whether the instance leads the stock summary's leadership.
	 */
	private static boolean leads(SampleInstance instance) {
		return instance.bean(LockRegistry.class).leadership(StockSummaryJob.LEADERSHIP).isLeader();
	}

	private static <T> List<T> runConcurrently(List<Callable<T>> tasks) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
		try {
			List<T> results = new ArrayList<>();
			for (Future<T> future : pool.invokeAll(tasks, 30, TimeUnit.SECONDS)) {
				results.add(future.get());
			}
			return results;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static SampleInstance a() {
		assertThat(a).isNotNull();
		return a;
	}

	private static SampleInstance b() {
		assertThat(b).isNotNull();
		return b;
	}

	/**
	 * The answer of the metrics endpoint for one meter.
	 */
	record Metric(String name, List<Sample> measurements) {

		record Sample(String statistic, double value) {

		}

	}

}
