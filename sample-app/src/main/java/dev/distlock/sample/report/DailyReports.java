package dev.distlock.sample.report;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.sample.inventory.Inventory;
import dev.distlock.sample.inventory.StockLevel;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Writes the daily stock report through the {@link LockRegistry}: it acquires a lease on
 * {@value #LOCK}, and the report carries the lease's fencing token into the
 * {@link FencedStore}, which refuses it if a later holder already wrote.
 */
@Service
public class DailyReports {

	/**
	 * The name of the lock reports are written under.
	 */
	public static final String LOCK = "report:daily";

	/**
	 * The report's key in the {@link FencedStore}.
	 */
	public static final String REPORT_KEY = "sample:report:daily";

	private static final Duration WAIT_TIME = Duration.ofSeconds(5);

	private final LockRegistry locks;

	private final FencedStore store;

	private final Inventory inventory;

	private final String instance;

	DailyReports(LockRegistry locks, FencedStore store, Inventory inventory,
			@Value("${sample.instance-id}") String instance) {
		this.locks = locks;
		this.store = store;
		this.inventory = inventory;
		this.instance = instance;
	}

	/**
	 * Write today's report, waiting up to five seconds for another instance writing it.
	 * @return the report written
	 * @throws dev.distlock.LockAcquisitionException if the lock was not acquired in time
	 * @throws StaleTokenException if a later holder of the lock wrote first
	 */
	public DailyReport write() {
		try (LockLease lease = this.locks.acquire(LOCK, WAIT_TIME)) {
			List<StockLevel> stock = this.inventory.all();
			long total = stock.stream().mapToLong(StockLevel::stock).sum();
			DailyReport report = new DailyReport(LocalDate.now(ZoneOffset.UTC), stock.size(), total, this.instance,
					Instant.now(), lease.fencingToken());
			this.store.write(REPORT_KEY, lease.fencingToken(), report.fields());
			return report;
		}
	}

	/**
	 * Return the report written last.
	 * @return the report, or empty if none was written
	 */
	public Optional<DailyReport> latest() {
		return this.store.read(REPORT_KEY).map(DailyReport::of);
	}

}
