-- Acquires a lock and issues its fencing tokens in one round trip.
-- KEYS[1]: the lock key, KEYS[2]: its fencing counter, the helper key '<lock key>!fence'
-- or '{<lock key>}!fence' in the same Cluster slot, which no lock key can be
-- ARGV[1]: the holder's random token, ARGV[2]: the lease in milliseconds,
-- ARGV[3]: how many fencing tokens to reserve (1, or more for local hand-overs)
-- Returns the last reserved fencing token (> 0) when acquired; otherwise minus the
-- milliseconds the current holder's lease has left (0 when unknown), for the waiter's
-- fallback re-check.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return redis.call('incrby', KEYS[2], ARGV[3])
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
	ttl = tonumber(ARGV[2])
elseif ttl < 0 then
	ttl = 0
end
return -ttl
