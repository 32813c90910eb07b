package dev.distlock.sample.inventory;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.IntStream;

import dev.distlock.DistributedLock;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Stock levels kept in Redis as plain strings, changed with a read-modify-write
 * ({@code GET} then {@code SET}) that would lose updates without the lock: two instances
 * reading the same stock at once would both write back their own result. The per-SKU
 * {@link DistributedLock} makes the two commands one step for every instance.
 */
@Service
public class Inventory {

	private static final String STOCK_KEY = "sample:stock:";

	private static final String SKUS_KEY = "sample:skus";

	private final StringRedisTemplate redis;

	Inventory(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Return the stock of a SKU.
	 * @param sku the SKU
	 * @return its stock
	 * @throws UnknownSkuException if the SKU was never stocked
	 */
	public StockLevel stock(String sku) {
		return new StockLevel(sku, read(sku));
	}

	/**
	 * Set the stock of a SKU, creating it if needed.
	 * @param sku the SKU
	 * @param stock the new stock
	 * @return the new stock level
	 */
	@DistributedLock(name = "inventory", key = "#sku", waitTime = "2s")
	public StockLevel restock(String sku, long stock) {
		this.redis.opsForValue().set(STOCK_KEY + sku, Long.toString(stock));
		this.redis.opsForSet().add(SKUS_KEY, sku);
		return new StockLevel(sku, stock);
	}

	/**
	 * Take a quantity out of a SKU's stock.
	 * @param sku the SKU
	 * @param quantity how many to reserve
	 * @return the remaining stock
	 * @throws UnknownSkuException if the SKU was never stocked
	 * @throws InsufficientStockException if fewer than {@code quantity} are left
	 */
	@DistributedLock(name = "inventory", key = "#sku", waitTime = "2s")
	public StockLevel reserve(String sku, int quantity) {
		long stock = read(sku);
		if (stock < quantity) {
			throw new InsufficientStockException(sku, stock, quantity);
		}
		long remaining = stock - quantity;
		this.redis.opsForValue().set(STOCK_KEY + sku, Long.toString(remaining));
		return new StockLevel(sku, remaining);
	}

	/**
	 * Return the stock of every SKU, unlocked: a snapshot that may mix values from before
	 * and after concurrent changes.
	 * @return the stock levels, by SKU
	 */
	public List<StockLevel> all() {
		Set<String> skus = this.redis.opsForSet().members(SKUS_KEY);
		if (skus == null || skus.isEmpty()) {
			return List.of();
		}
		List<String> sorted = skus.stream().sorted().toList();
		List<String> values = this.redis.opsForValue().multiGet(sorted.stream().map((sku) -> STOCK_KEY + sku).toList());
		Objects.requireNonNull(values, "MGET in a pipeline or transaction");
		return IntStream.range(0, sorted.size())
			.filter((i) -> values.get(i) != null)
			.mapToObj((i) -> new StockLevel(sorted.get(i), Long.parseLong(values.get(i))))
			.toList();
	}

	private long read(String sku) {
		String stock = this.redis.opsForValue().get(STOCK_KEY + sku);
		if (stock == null) {
			throw new UnknownSkuException(sku);
		}
		return Long.parseLong(stock);
	}

}
