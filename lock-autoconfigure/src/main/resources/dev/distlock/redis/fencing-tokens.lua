-- Issues fencing tokens for a lock; the scripts that grant a lock include this text.
-- A token is greater than the server's clock in microseconds since the epoch (TIME) and
-- than the last token issued for the lock while that is remembered, so tokens keep
-- increasing across a restart without persistence, a FLUSHALL or a failover to a replica
-- that missed writes, and across a clock step back shorter than the retention. The last
-- token is kept under the fencing key for the given milliseconds: the lease plus the lock
-- delay plus the retention. The clock's next microsecond is written first, reading the
-- last token in the same command (SET ... GET): it is almost always greater, and
-- otherwise the last token plus one is written over it (whose write reads the first).
-- Tokens stay below 2^53, exact in Lua's numbers, until the year 2255. On a node of a
-- Redlock quorum, a token is also at least token_floor, which token-floor.lua sets to the
-- token the client proposes to every node (0 otherwise: the floor changes nothing).
local token_floor = 0
local function issue_token(fence_key, keep_millis)
	local time = redis.call('time')
	local issued
	-- What the token must be greater than: the clock and the floor less one, then the
	-- token the key held
	local last = math.max(tonumber(time[1]) * 1000000 + tonumber(time[2]), token_floor - 1)
	repeat
		issued = last + 1
		last = tonumber(redis.call('set', fence_key, string.format('%.0f', issued), 'PX', keep_millis, 'GET')) or 0
	until last < issued
	return issued
end
