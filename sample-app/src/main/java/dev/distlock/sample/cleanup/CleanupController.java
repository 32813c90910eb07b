package dev.distlock.sample.cleanup;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /cleanup/runs}: the newest runs of the {@link CleanupJob}, across instances.
 */
@RestController
class CleanupController {

	private final CleanupJob job;

	CleanupController(CleanupJob job) {
		this.job = job;
	}

	@GetMapping("/cleanup/runs")
	List<CleanupRun> runs(@RequestParam(defaultValue = "10") int limit) {
		return this.job.recentRuns(Math.max(1, Math.min(limit, 100)));
	}

}
