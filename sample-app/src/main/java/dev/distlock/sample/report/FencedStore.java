package dev.distlock.sample.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * A store in Redis that checks fencing tokens: each entry is a hash that remembers the
 * highest token it was written with, and a write with a lower token is rejected (one Lua
 * script, {@code fenced-write.lua}, so the check and the write are atomic). This is what
 * makes a lock safe against a holder that stalled past its lease: its late write carries
 * an older token than the next holder's and is refused.
 */
@Component
public class FencedStore {

	private static final String TOKEN_FIELD = "token";

	private static final RedisScript<Long> FENCED_WRITE = RedisScript
		.of(new ClassPathResource("fenced-write.lua", FencedStore.class), Long.class);

	private final StringRedisTemplate redis;

	FencedStore(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Write an entry's fields if the token is at least the highest one it was written
	 * with.
	 * @param key the entry's Redis key
	 * @param fencingToken the writer's fencing token
	 * @param fields the fields to write
	 * @throws StaleTokenException if the entry was written with a higher token
	 */
	public void write(String key, long fencingToken, Map<String, String> fields) {
		List<String> args = new ArrayList<>(1 + 2 * fields.size());
		args.add(Long.toString(fencingToken));
		fields.forEach((field, value) -> {
			args.add(field);
			args.add(value);
		});
		Long highest = this.redis.execute(FENCED_WRITE, List.of(key), args.toArray());
		if (highest == null || highest != fencingToken) {
			throw new StaleTokenException(key, fencingToken, (highest != null) ? highest : -1);
		}
	}

	/**
	 * Read an entry.
	 * @param key the entry's Redis key
	 * @return its fields and the token it was last written with, or empty if never
	 * written
	 */
	public Optional<Entry> read(String key) {
		Map<Object, Object> hash = this.redis.opsForHash().entries(key);
		if (hash.isEmpty()) {
			return Optional.empty();
		}
		Map<String, String> fields = new LinkedHashMap<>();
		hash.forEach((field, value) -> fields.put(field.toString(), value.toString()));
		long token = Long.parseLong(fields.remove(TOKEN_FIELD));
		return Optional.of(new Entry(token, fields));
	}

	/**
	 * An entry of the store.
	 *
	 * @param fencingToken the token it was last written with
	 * @param fields its fields
	 */
	public record Entry(long fencingToken, Map<String, String> fields) {

	}

}
