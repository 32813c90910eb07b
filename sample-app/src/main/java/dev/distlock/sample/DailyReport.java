package dev.distlock.sample;

import java.time.Duration;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Writes a report once at startup under a distributed lock, showing the lease's fencing
 * token.
 *
 * @author distlock
 */
@Component
class DailyReport implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(DailyReport.class);

	private final LockRegistry locks;

	DailyReport(LockRegistry locks) {
		this.locks = locks;
	}

	@Override
	public void run(ApplicationArguments args) {
		try (LockLease lease = this.locks.acquire("report:daily", Duration.ofSeconds(5))) {
			logger.info("Writing the daily report under lock '" + lease.name() + "' with fencing token "
					+ lease.fencingToken());
		}
	}

}
