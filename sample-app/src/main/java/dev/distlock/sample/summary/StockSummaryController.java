package dev.distlock.sample.summary;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /reports/summary}: the stock summary the leader wrote last.
 */
@RestController
class StockSummaryController {

	private final StockSummaryJob job;

	StockSummaryController(StockSummaryJob job) {
		this.job = job;
	}

	@GetMapping("/reports/summary")
	ResponseEntity<StockSummary> latest() {
		return ResponseEntity.of(this.job.latest());
	}

}
