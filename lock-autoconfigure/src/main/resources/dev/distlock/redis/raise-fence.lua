-- Raises a held lock's fencing key to a fencing token a Redlock quorum issued (the
-- greatest of the tokens its nodes issued), so that every token this node issues for the
-- lock from now on is greater: any later majority shares a node with this one.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key
-- ARGV[1]: the holder's token, ARGV[2]: the fencing token of the hold, ARGV[3]: how long
-- the fencing key lives in milliseconds
-- Returns 1 when the lock holds the holder's token (the fencing key is at least the given
-- token), 0 when it expired or was taken over (nothing is written).
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	return 0
end
local last = tonumber(redis.call('get', KEYS[2])) or 0
if last < tonumber(ARGV[2]) then
	redis.call('set', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return 1
