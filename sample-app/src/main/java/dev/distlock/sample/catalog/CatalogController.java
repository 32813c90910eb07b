package dev.distlock.sample.catalog;

import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code /catalog}: read the whole catalogue, or replace it.
 */
@RestController
@RequestMapping("/catalog")
class CatalogController {

	private final Catalog catalog;

	CatalogController(Catalog catalog) {
		this.catalog = catalog;
	}

	@GetMapping
	CatalogSnapshot read() {
		return this.catalog.read();
	}

	@PutMapping
	CatalogSnapshot replace(@RequestBody Map<String, Long> prices) {
		if (prices.values().stream().anyMatch((price) -> price == null || price < 0)) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "every price must be given and not negative");
		}
		return this.catalog.replace(prices);
	}

}
