package dev.distlock.sample.catalog;

import java.util.Map;
import java.util.TreeMap;

import dev.distlock.DistributedLock;
import dev.distlock.LockMode;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * A product catalogue kept in Redis as a hash of prices and a revision counter, read and
 * replaced with several commands each. Readers take the shared side of the
 * {@code catalog} read/write lock, so any number of them, on every instance, read at
 * once; a replacement takes the exclusive side, so no reader ever sees a catalogue half
 * replaced, and a replacement waiting for the readers holds back the readers that come
 * after it.
 */
@Service
public class Catalog {

	private static final String PRICES_KEY = "sample:catalog:prices";

	private static final String REVISION_KEY = "sample:catalog:revision";

	private final StringRedisTemplate redis;

	Catalog(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Return the whole catalogue, read under the shared side of its lock.
	 * @return the catalogue
	 */
	@DistributedLock(name = "catalog", mode = LockMode.SHARED, waitTime = "2s")
	public CatalogSnapshot read() {
		String revision = this.redis.opsForValue().get(REVISION_KEY);
		Map<Object, Object> entries = this.redis.opsForHash().entries(PRICES_KEY);
		Map<String, Long> prices = new TreeMap<>();
		entries.forEach((product, price) -> prices.put((String) product, Long.parseLong((String) price)));
		return new CatalogSnapshot((revision != null) ? Long.parseLong(revision) : 0, prices);
	}

	/**
	 * Replace the whole catalogue, product by product, under the exclusive side of its
	 * lock.
	 * @param prices the price of each product, in cents
	 * @return the new catalogue
	 */
	@DistributedLock(name = "catalog", waitTime = "2s")
	public CatalogSnapshot replace(Map<String, Long> prices) {
		this.redis.delete(PRICES_KEY);
		prices.forEach((product, price) -> this.redis.opsForHash().put(PRICES_KEY, product, Long.toString(price)));
		Long revision = this.redis.opsForValue().increment(REVISION_KEY);
		return new CatalogSnapshot((revision != null) ? revision : 0, new TreeMap<>(prices));
	}

}
