package dev.distlock.docs;

import java.util.OptionalLong;

import dev.distlock.LeaderOnly;
import dev.distlock.LockRegistry;

import org.springframework.scheduling.annotation.Scheduled;

/**
 * The user guide's leader-only job: every instance schedules it, the leader of
 * {@code report} runs it and writes with its term's fencing token.
 */
class ReportJob {

	private final LockRegistry locks;

	private final TokenStore reports;

	ReportJob(LockRegistry locks, TokenStore reports) {
		this.locks = locks;
		this.reports = reports;
	}

	// tag::leader-only[]
	@Scheduled(fixedRate = 60_000)
	@LeaderOnly("report")
	public void generateReport() {
		// empty if the term ended meanwhile
		OptionalLong term = this.locks.leadership("report").fencingToken();
		// a store that checks tokens refuses the write if a later term wrote
		term.ifPresent((token) -> this.reports.write("report", token));
	}
	// end::leader-only[]

}
