-- Confirms that a lock passed on within the JVM was still held, extending its lease and
-- how long its fencing key remembers the last token, and takes the next holder out of the
-- lock's wait queue. Sent whole with EVAL every time, so kept short: it takes the waiter out
-- of the queue's two keys itself rather than start with wait-queue.lua.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue
-- ARGV[1]: how long the key lives in milliseconds, the lease plus the lock delay,
-- ARGV[2]: how long the fencing key lives in milliseconds, ARGV[3]: the lock delay in
-- milliseconds, ARGV[4]: the token held, ARGV[5]: the token the next holder waited under
-- in the queue
-- Returns one number, in a list like the renew script's: 1 when extended, 0 when the lock
-- expired or was taken over, or when its lease ran out and only the lock delay keeps it.
-- Like the renew script, it never shortens the key or its fencing key.
redis.call('zrem', KEYS[3], ARGV[5])
redis.call('hdel', KEYS[4], ARGV[5])
local delay = tonumber(ARGV[3])
if redis.call('get', KEYS[1]) == ARGV[4] and (delay == 0 or redis.call('pttl', KEYS[1]) > delay) then
	for i = 1, 2 do
		if redis.call('pttl', KEYS[i]) < tonumber(ARGV[i]) then
			redis.call('pexpire', KEYS[i], ARGV[i])
		end
	end
	return { 1 }
end
return { 0 }
