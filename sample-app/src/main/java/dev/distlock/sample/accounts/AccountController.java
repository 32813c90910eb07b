package dev.distlock.sample.accounts;

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
 * {@code /accounts}: read and set balances, and transfer between accounts.
 */
@RestController
@RequestMapping("/accounts")
class AccountController {

	private final Accounts accounts;

	AccountController(Accounts accounts) {
		this.accounts = accounts;
	}

	@GetMapping("/{id}")
	Balance balance(@PathVariable String id) {
		return this.accounts.balance(id);
	}

	@PutMapping("/{id}")
	Balance open(@PathVariable String id, @RequestParam long balance) {
		if (balance < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'balance' must not be negative");
		}
		return this.accounts.open(id, balance);
	}

	@PostMapping("/transfer")
	Transfer transfer(@RequestParam String from, @RequestParam String to, @RequestParam long amount) {
		if (amount < 1) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'amount' must be at least 1");
		}
		if (from.equals(to)) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'from' and 'to' must differ");
		}
		return this.accounts.transfer(from, to, amount);
	}

}
