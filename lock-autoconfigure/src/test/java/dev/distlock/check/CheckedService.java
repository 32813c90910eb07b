package dev.distlock.check;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import reactor.core.publisher.Mono;

import org.springframework.transaction.annotation.Transactional;

/**
 * The annotated methods the workers call: one lock or several ({@code key} a list),
 * watchdog or fixed lease, a minimum hold time, a transaction inside the lock, and
 * results that are plain, {@code CompletableFuture} or {@code Mono}. Lock names are
 * {@code c:<key>}, the same locks the workers take through the registry.
 */
public class CheckedService {

	private final RecordingLockRegistry registry;

	private final CriticalSection critical;

	private final Executor executor;

	CheckedService(RecordingLockRegistry registry, CriticalSection critical, Executor executor) {
		this.registry = registry;
		this.critical = critical;
		this.executor = executor;
	}

	@DistributedLock(name = "c", key = "#key", waitTime = "1s")
	public long sync(String key) {
		return this.critical.run(List.of(currentHold()));
	}

	@DistributedLock(name = "c", key = "#key", waitTime = "1s", leaseTime = "700ms")
	public long fixedLease(String key) {
		return this.critical.run(List.of(currentHold()));
	}

	@DistributedLock(name = "c", key = "#key", waitTime = "1s")
	@Transactional
	public long transactional(String key) {
		return this.critical.run(List.of(currentHold()));
	}

	@DistributedLock(name = "c", key = "#key", waitTime = "1s", minHoldTime = "150ms")
	public long minHold(String key) {
		return this.critical.run(List.of(currentHold()));
	}

	@DistributedLock(name = "c", key = "#keys", waitTime = "2s")
	public long multi(List<String> keys) {
		return this.critical.run(holds(keys));
	}

	@DistributedLock(name = "c", key = "#keys", waitTime = "2s")
	public CompletableFuture<Long> future(List<String> keys) {
		List<RecordedHold> holds = holds(keys);
		return CompletableFuture.supplyAsync(() -> this.critical.run(holds), this.executor);
	}

	@DistributedLock(name = "c", key = "#key", waitTime = "1s")
	public Mono<Long> mono(String key) {
		return Mono.fromCallable(() -> this.critical.run(holds(List.of(key))));
	}

	private RecordedHold currentHold() {
		return ((RecordedLease) LockContext.currentLease().orElseThrow()).hold();
	}

	private List<RecordedHold> holds(List<String> keys) {
		return keys.stream().map((key) -> this.registry.latest("c:" + key)).toList();
	}

}
