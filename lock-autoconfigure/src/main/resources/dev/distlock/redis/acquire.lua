-- Acquires a lock, takes up a grant of it, or waits for it in its queue, in one round
-- trip (issue_tokens and the queue functions come from fencing-tokens.lua and
-- wait-queue.lua, which precede this text).
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- helper keys in the lock key's Cluster slot, which no lock key can be
-- ARGV[1]: the caller's random token, ARGV[2]: how long the key lives in milliseconds,
-- the lease plus the lock delay, ARGV[3]: how many fencing tokens to reserve (1, or more
-- for local hand-overs), ARGV[4]: how long the fencing key lives in milliseconds,
-- ARGV[5]: '1' to wait in the queue, '0' to leave it, ARGV[6]: how long a queue entry
-- lives without being renewed, in milliseconds, ARGV[7]: how long a grant waits for the
-- caller to take it up, in milliseconds, ARGV[8]: the channel of the caller's process
-- ('' when it polls)
-- Returns the last reserved fencing token (> 0) when the caller holds the lock: it was
-- free and nobody waited before the caller, or a release granted it to the caller, who
-- takes the grant up (its fencing tokens are issued now, for as many local waiters as
-- queue behind it now, and none for a grant never taken up);
-- otherwise minus the milliseconds the lock key has left (0 when unknown), for the
-- caller's next re-check.
if redis.call('exists', KEYS[3]) == 0 and redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return issue_tokens(KEYS[2], tonumber(ARGV[3]), ARGV[4])
end
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
	redis.call('pexpire', KEYS[1], ARGV[2])
	return issue_tokens(KEYS[2], tonumber(ARGV[3]), ARGV[4])
end
local now = server_micros()
if not holder then
	local first, claim, channel = first_live(now)
	if not first or first == ARGV[1] then
		leave(ARGV[1])
		redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
		return issue_tokens(KEYS[2], tonumber(ARGV[3]), ARGV[4])
	end
	grant(first, claim, channel)
end
if ARGV[5] == '1' then
	enqueue(ARGV[1], now, tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8])
else
	leave(ARGV[1])
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
	ttl = tonumber(ARGV[2])
elseif ttl < 0 then
	ttl = 0
end
return -ttl
