-- The read shares of a lock, which keep its write side out, and how long a caller that
-- finds the lock taken waits before it tries again; the scripts that grant the lock or a
-- read share start with this text.
-- KEYS[5]: the readers' tokens, a sorted set scored by when each share expires in the
-- server's milliseconds (the lease plus the lock delay after it was taken or renewed),
-- which lives as long as its longest share and is gone once the last reader leaves.

-- Drops the shares that expired by the given server clock in microseconds (readers that
-- died or stalled) and returns whether any share is left.
local function has_readers(now)
	redis.call('zremrangebyscore', KEYS[5], '-inf', math.floor(now / 1000))
	return redis.call('exists', KEYS[5]) == 1
end

-- Returns how long the lock is taken for, in milliseconds, for the caller's next
-- re-check: what the lock key has left, or the read shares when no writer holds the lock;
-- a key without TTL, not written by distlock, counts as the given life; 0 when unknown.
local function remaining_millis(life)
	local ttl = redis.call('pttl', KEYS[1])
	if ttl == -2 then
		ttl = redis.call('pttl', KEYS[5])
	end
	if ttl == -1 then
		return tonumber(life)
	end
	return math.max(ttl, 0)
end
