package dev.distlock.sample.accounts;

import dev.distlock.DistributedLock;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Account balances kept in Redis as plain strings. A transfer reads both balances and
 * writes both back; it locks both accounts with one multi-key {@link DistributedLock}
 * ({@code key = "{#from, #to}"}). distlock takes the two locks in one global order, so a
 * transfer from {@code a} to {@code b} and one from {@code b} to {@code a} never
 * deadlock.
 */
@Service
public class Accounts {

	private static final String BALANCE_KEY = "sample:balance:";

	private final StringRedisTemplate redis;

	Accounts(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Return the balance of an account.
	 * @param id the account
	 * @return its balance
	 * @throws UnknownAccountException if the account does not exist
	 */
	public Balance balance(String id) {
		return new Balance(id, read(id));
	}

	/**
	 * Set the balance of an account, opening it if needed.
	 * @param id the account
	 * @param balance the new balance
	 * @return the new balance
	 */
	@DistributedLock(name = "account", key = "#id", waitTime = "2s")
	public Balance open(String id, long balance) {
		this.redis.opsForValue().set(BALANCE_KEY + id, Long.toString(balance));
		return new Balance(id, balance);
	}

	/**
	 * Move an amount from one account to another.
	 * @param from the account to debit
	 * @param to the account to credit
	 * @param amount the amount, positive
	 * @return both balances after the transfer
	 * @throws UnknownAccountException if either account does not exist
	 * @throws InsufficientFundsException if {@code from} holds less than {@code amount}
	 */
	@DistributedLock(name = "account", key = "{#from, #to}", waitTime = "2s")
	public Transfer transfer(String from, String to, long amount) {
		long fromBalance = read(from);
		long toBalance = read(to);
		if (fromBalance < amount) {
			throw new InsufficientFundsException(from, fromBalance, amount);
		}
		this.redis.opsForValue().set(BALANCE_KEY + from, Long.toString(fromBalance - amount));
		this.redis.opsForValue().set(BALANCE_KEY + to, Long.toString(toBalance + amount));
		return new Transfer(amount, new Balance(from, fromBalance - amount), new Balance(to, toBalance + amount));
	}

	private long read(String id) {
		String balance = this.redis.opsForValue().get(BALANCE_KEY + id);
		if (balance == null) {
			throw new UnknownAccountException(id);
		}
		return Long.parseLong(balance);
	}

}
