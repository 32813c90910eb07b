package dev.distlock.sample.report;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /reports/daily}: write and read the daily report.
 */
@RestController
@RequestMapping("/reports/daily")
class ReportController {

	private final DailyReports reports;

	ReportController(DailyReports reports) {
		this.reports = reports;
	}

	@PostMapping
	DailyReport write() {
		return this.reports.write();
	}

	@GetMapping
	ResponseEntity<DailyReport> latest() {
		return ResponseEntity.of(this.reports.latest());
	}

}
