-- Releases a lock only while it still holds the caller's token, and wakes the waiters.
-- KEYS[1]: the lock key
-- ARGV[1]: the holder's token, ARGV[2]: milliseconds the lock must still be kept (0: none)
-- Returns 1 when the caller still held the lock, 0 when it had expired or been taken over.
-- A lock kept for its minimum hold time no longer holds the caller's token, so that a
-- renewal sent before the release and arriving after it cannot extend it again.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	return 0
end
local keep = tonumber(ARGV[2])
if keep > 0 then
	redis.call('set', KEYS[1], 'released', 'PX', keep)
else
	redis.call('del', KEYS[1])
	redis.call('publish', KEYS[1], 'released')
end
return 1
