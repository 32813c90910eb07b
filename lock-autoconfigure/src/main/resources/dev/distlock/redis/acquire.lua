-- Acquires a lock and issues its fencing tokens in one round trip (issue_tokens comes
-- from fencing-tokens.lua, which precedes this text).
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, the helper key '<lock key>!fence'
-- or '{<lock key>}!fence' in the same Cluster slot, which no lock key can be
-- ARGV[1]: the holder's random token, ARGV[2]: how long the key lives in milliseconds,
-- the lease plus the lock delay, ARGV[3]: how many fencing tokens to reserve (1, or more
-- for local hand-overs), ARGV[4]: how long the fencing key lives in milliseconds
-- Returns the last reserved fencing token (> 0) when acquired; otherwise minus the
-- milliseconds the current holder's key has left (0 when unknown), for the waiter's
-- fallback re-check.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return issue_tokens(KEYS[2], tonumber(ARGV[3]), ARGV[4])
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
	ttl = tonumber(ARGV[2])
elseif ttl < 0 then
	ttl = 0
end
return -ttl
