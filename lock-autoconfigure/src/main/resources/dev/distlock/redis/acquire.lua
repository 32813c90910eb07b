-- Acquires a lock, takes up a grant of it, or waits for it in its queue, in one round
-- trip (issue_token, the queue functions and the shared-hold functions come from
-- fencing-tokens.lua, wait-queue.lua and shared-holds.lua, which it includes). A free lock
-- that nobody waits for, reads or gave back an attempt on is taken before the queue and
-- shared-hold functions are defined: that case needs none of them.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: the read shares of the read/write lock whose write side the lock is, KEYS[6]:
-- the tokens given back, helper keys in the lock key's Cluster slot, which no lock key can
-- be
-- ARGV[1]: the caller's random token, ARGV[2]: how long the key lives in milliseconds,
-- the lease plus the lock delay, ARGV[3]: how long the fencing key lives in milliseconds,
-- ARGV[4]: '1' to wait in the queue, '0' to leave it, ARGV[5]: how long a queue entry
-- lives without being renewed, in milliseconds, ARGV[6]: the caller's grant terms, kept
-- in its queue entry (wait-queue.lua), ARGV[7]: the channel of the caller's process ('' when
-- it polls)
-- Returns the caller's fencing token (> 0) when the caller holds the lock: it was free,
-- nobody read it and nobody waited before the caller, or a release granted it to the
-- caller, who takes the grant up (a fencing token of its own is issued now: the grant's
-- was for a start on its message); otherwise minus the milliseconds the lock key has left,
-- or the read shares while readers hold the lock (0 when unknown), for the caller's next
-- re-check. A waiter that
-- leaves the queue while readers hold the lock wakes the first waiter left, which may be
-- a reader that it kept out. An attempt whose token was given back (it reached Redis after
-- the give-back, which was sent after it on another connection) takes nothing: returns 0.
--#include fencing-tokens.lua
if redis.call('exists', KEYS[3], KEYS[5], KEYS[6]) == 0
		and redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return issue_token(KEYS[2], ARGV[3])
end
--#include wait-queue.lua
--#include shared-holds.lua
if given_back(ARGV[1]) then
	return 0
end
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
	return hold(ARGV[1], nil, ARGV[2], ARGV[3])
end
local now = server_micros()
local read = not holder and live_holders(millis_of(now)) > 0
if not holder and not read then
	local first, claim, channel = first_live(now)
	if not first or first == ARGV[1] then
		return hold(ARGV[1], ARGV[1], ARGV[2], ARGV[3])
	end
	grant(first, claim, channel)
end
if ARGV[4] == '1' then
	enqueue(ARGV[1], now, tonumber(ARGV[5]), ARGV[6], ARGV[7])
else
	if leave(ARGV[1]) and read then
		wake_first()
	end
end
local ttl = redis.call('pttl', read and KEYS[5] or KEYS[1])
if ttl == -1 then
	ttl = tonumber(ARGV[2])
elseif ttl < 0 then
	ttl = 0
end
return -ttl
