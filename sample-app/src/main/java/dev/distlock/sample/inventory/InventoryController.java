package dev.distlock.sample.inventory;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code /inventory}: read, set and reserve stock.
 */
@RestController
@RequestMapping("/inventory")
class InventoryController {

	private final Inventory inventory;

	InventoryController(Inventory inventory) {
		this.inventory = inventory;
	}

	@GetMapping
	List<StockLevel> all() {
		return this.inventory.all();
	}

	@GetMapping("/{sku}")
	StockLevel stock(@PathVariable String sku) {
		return this.inventory.stock(sku);
	}

	@PutMapping("/{sku}")
	StockLevel restock(@PathVariable String sku, @RequestParam long stock) {
		if (stock < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'stock' must not be negative");
		}
		return this.inventory.restock(sku, stock);
	}

	@PostMapping("/{sku}/reserve")
	StockLevel reserve(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
		if (quantity < 1) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'quantity' must be at least 1");
		}
		return this.inventory.reserve(sku, quantity);
	}

}
