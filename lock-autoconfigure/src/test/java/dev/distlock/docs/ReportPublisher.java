package dev.distlock.docs;

import java.time.LocalDate;

import dev.distlock.DistributedLock;
import dev.distlock.fencing.JdbcFence;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The user guide's fenced publication: the business write and the fence advance in one
 * transaction.
 */
class ReportPublisher {

	private final JdbcTemplate reports;

	private final JdbcFence jdbcFence;

	ReportPublisher(JdbcTemplate reports, JdbcFence jdbcFence) {
		this.reports = reports;
		this.jdbcFence = jdbcFence;
	}

	// tag::jdbc-fence[]
	@DistributedLock(name = "report", key = "#day")
	@Transactional
	public void publish(LocalDate day, String report) {
		// the business write
		this.reports.update("INSERT INTO report (published_on, body) VALUES (?, ?)", day, report);
		// same transaction: a stale token rolls both back
		this.jdbcFence.advance("report:" + day);
	}
	// end::jdbc-fence[]

}
