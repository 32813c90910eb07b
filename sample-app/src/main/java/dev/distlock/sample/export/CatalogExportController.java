package dev.distlock.sample.export;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /catalog/exports}: run an export of the catalogue, limited cluster-wide.
 */
@RestController
@RequestMapping("/catalog/exports")
class CatalogExportController {

	private final CatalogExports exports;

	CatalogExportController(CatalogExports exports) {
		this.exports = exports;
	}

	@PostMapping
	CatalogExport export() throws InterruptedException {
		return this.exports.export();
	}

}
