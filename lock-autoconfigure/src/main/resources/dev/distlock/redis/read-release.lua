-- Releases a read share of a read/write lock only while it is live, or gives back the
-- token of a reader that gives up: takes it out of the lock's queue and passes on a grant
-- of the lock made to it. The last reader out, while no writer holds the lock, grants it
-- to the first live waiter (a writer that waited for the readers). The queue functions
-- and has_readers come from wait-queue.lua and readers.lua, which precede this text.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: its read shares
-- ARGV[1]: the reader's token, ARGV[2]: the share's lock delay in milliseconds (0: none),
-- ARGV[3]: '1' when the holder knows its lease is over (lost, or run out)
-- Returns 1 when the reader still held its share, 2 when it held it but its lease was
-- over and the lock delay keeps writers out for the rest of the share's life, 0 when it
-- had expired or been removed.
-- A share kept for its lock delay stays under another name, so that a renewal sent
-- before the release and arriving after it cannot extend it again.
local now = server_micros()
local queued = redis.call('exists', KEYS[3]) == 1
if queued then
	leave(ARGV[1])
end
local held = 0
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
else
	local expiry = tonumber(redis.call('zscore', KEYS[5], ARGV[1]))
	if not expiry or expiry * 1000 <= now then
		return 0
	end
	local delay = tonumber(ARGV[2])
	if delay > 0 and (ARGV[3] == '1' or (expiry - delay) * 1000 <= now) then
		redis.call('zadd', KEYS[5], expiry, ARGV[1] .. ':released')
		redis.call('zrem', KEYS[5], ARGV[1])
		return 2
	end
	redis.call('zrem', KEYS[5], ARGV[1])
	held = 1
end
if queued and redis.call('exists', KEYS[1]) == 0 and not has_readers(now) then
	grant_next()
end
return held
