-- Releases a lock only while it still holds the caller's token, and wakes the waiters.
-- KEYS[1]: the lock key
-- ARGV[1]: the holder's token, ARGV[2]: milliseconds the lock must still be kept (0: none),
-- ARGV[3]: the hold's lock delay in milliseconds (0: none), ARGV[4]: '1' when the holder
-- knows its lease is over (lost, or run out)
-- Returns 1 when the caller still held the lock, 2 when it held it but its lease was over
-- and the lock delay keeps the lock from everyone for the rest of the key's life, 0 when
-- it had expired or been taken over.
-- A lock kept for its minimum hold time or its lock delay no longer holds the caller's
-- token, so that a renewal sent before the release and arriving after it cannot extend it
-- again.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	return 0
end
local delay = tonumber(ARGV[3])
if delay > 0 and (ARGV[4] == '1' or redis.call('pttl', KEYS[1]) <= delay) then
	redis.call('set', KEYS[1], 'released', 'KEEPTTL')
	return 2
end
local keep = tonumber(ARGV[2])
if keep > 0 then
	redis.call('set', KEYS[1], 'released', 'PX', keep)
else
	redis.call('del', KEYS[1])
	redis.call('publish', KEYS[1], 'released')
end
return 1
