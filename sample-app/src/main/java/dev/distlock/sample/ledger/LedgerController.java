package dev.distlock.sample.ledger;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /ledger/{account}}: read an account's balance, post to it, and see a stalled
 * holder's late post refused ({@link StaleWriteDemo}).
 */
@RestController
@RequestMapping("/ledger/{account}")
class LedgerController {

	private final Ledger ledger;

	private final StaleWriteDemo staleWriteDemo;

	LedgerController(Ledger ledger, StaleWriteDemo staleWriteDemo) {
		this.ledger = ledger;
		this.staleWriteDemo = staleWriteDemo;
	}

	@GetMapping
	ResponseEntity<LedgerBalance> balance(@PathVariable String account) {
		return ResponseEntity.of(this.ledger.balance(account));
	}

	@PostMapping
	LedgerBalance post(@PathVariable String account, @RequestParam long amount) {
		return this.ledger.post(account, amount);
	}

	@PostMapping("/stale-write-demo")
	LedgerBalance staleWriteDemo(@PathVariable String account, @RequestParam(defaultValue = "10") long amount) {
		return this.staleWriteDemo.run(account, amount);
	}

}
