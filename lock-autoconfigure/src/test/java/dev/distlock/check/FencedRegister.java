package dev.distlock.check;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The resources the locks protect, kept in a store Redis that no fault touches: per lock
 * name a fenced counter and a plain counter.
 * <p>
 * The fenced counter is a register that remembers the highest fencing token it has seen,
 * on reads as well as writes, and the hold that brought it, and refuses a lower one, or
 * the same one from another hold (readers, who share a lock, raise it but are never
 * refused): a read-modify-write through it never loses an update between holders with
 * different tokens. Every accepted write is appended to a log
 * ({@code w <op> <token> <old> <new>}). Fencing tokens keep increasing when the lock
 * Redis loses its data, so the register is never reset.
 * <p>
 * The plain counter is read with {@code GET} and written with {@code SET}, unfenced; its
 * value names the operation that wrote it, so the checker can tell which operations read
 * the same predecessor, i.e. lost an update.
 */
final class FencedRegister {

	/**
	 * Whether the token in {@code ARGV[1]} of the hold in {@code ARGV[2]} is below the
	 * register's highest, or equal to it and another hold's.
	 */
	private static final String STALE = """
			local highest = tonumber(redis.call('hget', KEYS[1], 'highest') or '0')
			local holder = redis.call('hget', KEYS[1], 'holder')
			local token = tonumber(ARGV[1])
			local stale = token < highest or (token == highest and holder and holder ~= ARGV[2])
			""";

	private static final String READ = STALE + """
			if stale then
				return {0, 0, 0}
			end
			redis.call('hset', KEYS[1], 'highest', ARGV[1], 'holder', ARGV[2])
			return {1, tonumber(redis.call('hget', KEYS[1], 'value') or '0')}
			""";

	private static final String READ_SHARED = """
			local highest = tonumber(redis.call('hget', KEYS[1], 'highest') or '0')
			if tonumber(ARGV[1]) > highest then
				redis.call('hset', KEYS[1], 'highest', ARGV[1], 'holder', ARGV[2])
			end
			return tonumber(redis.call('hget', KEYS[1], 'value') or '0')
			""";

	private static final String WRITE = STALE + """
			if stale then
				return 0
			end
			local new = tonumber(ARGV[3]) + 1
			redis.call('hset', KEYS[1], 'highest', ARGV[1], 'holder', ARGV[2], 'value', new)
			redis.call('rpush', KEYS[2], 'w ' .. ARGV[4] .. ' ' .. ARGV[1] .. ' ' .. ARGV[3] .. ' ' .. new)
			return 1
			""";

	private final RedisCommands<String, String> store;

	FencedRegister(RedisCommands<String, String> store) {
		this.store = store;
	}

	static String logKey(String name) {
		return "check:log:" + name;
	}

	static String plainKey(String name) {
		return "check:plain:" + name;
	}

	private static String registerKey(String name) {
		return "check:register:" + name;
	}

	/**
	 * Increment the fenced counter of a lock name: a fenced read, then a fenced write.
	 * @param name the lock's name
	 * @param token the holder's fencing token
	 * @param holder the hold's id
	 * @param op the operation's id, for the log
	 * @return {@code ACCEPTED}, or {@code REFUSED_READ} or {@code REFUSED_WRITE}
	 */
	String incrementFenced(String name, long token, String holder, String op) {
		List<Long> read = this.store.eval(READ, ScriptOutputType.MULTI, new String[] { registerKey(name) },
				Long.toString(token), holder);
		if (read.get(0) == 0L) {
			return "REFUSED_READ";
		}
		Long written = this.store.eval(WRITE, ScriptOutputType.INTEGER,
				new String[] { registerKey(name), logKey(name) }, Long.toString(token), holder,
				Long.toString(read.get(1)), op);
		return (written == 1L) ? "ACCEPTED" : "REFUSED_WRITE";
	}

	/**
	 * Read the plain counter of a lock name.
	 * @param name the lock's name
	 * @return the count and the id of the operation that wrote it ({@code 0 none} when
	 * never written)
	 */
	String[] readPlain(String name) {
		String value = this.store.get(plainKey(name));
		return (value != null) ? value.split(" ", 2) : new String[] { "0", "none" };
	}

	/**
	 * Write the plain counter of a lock name.
	 * @param name the lock's name
	 * @param count the new count
	 * @param op the id of the writing operation
	 */
	void writePlain(String name, long count, String op) {
		this.store.set(plainKey(name), count + " " + op);
	}

	/**
	 * Read the fenced counter of a lock name under a read share: raise the register's
	 * token to the reader's if it is lower, but never refuse, since readers with greater
	 * tokens share the lock. Once read, the register refuses every writer whose token is
	 * lower than the reader's, so that only a writer granted after the reader can change
	 * it.
	 * @param name the lock's name
	 * @param token the reader's fencing token
	 * @param holder the read hold's id
	 * @return the counter's value
	 */
	long readShared(String name, long token, String holder) {
		return this.store.eval(READ_SHARED, ScriptOutputType.INTEGER, new String[] { registerKey(name) },
				Long.toString(token), holder);
	}

	/**
	 * Return the log of the fenced counter of a lock name.
	 * @param name the lock's name
	 * @return the entries, oldest first
	 */
	List<String> log(String name) {
		return this.store.lrange(logKey(name), 0, -1);
	}

}
