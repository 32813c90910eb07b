package dev.distlock.sample.ledger;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /ledger/{account}}: read an account's balance and post to it.
 */
@RestController
@RequestMapping("/ledger/{account}")
class LedgerController {

	private final Ledger ledger;

	LedgerController(Ledger ledger) {
		this.ledger = ledger;
	}

	@GetMapping
	ResponseEntity<LedgerBalance> balance(@PathVariable String account) {
		return ResponseEntity.of(this.ledger.balance(account));
	}

	@PostMapping
	LedgerBalance post(@PathVariable String account, @RequestParam long amount) {
		return this.ledger.post(account, amount);
	}

}
