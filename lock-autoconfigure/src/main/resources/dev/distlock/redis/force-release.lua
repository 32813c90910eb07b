-- Releases a lock whoever holds it, for an operator: deletes its key whatever it holds (a
-- holder's token, a grant to a waiter not taken up yet, or a release kept for a minimum
-- hold time or a lock delay) and grants the lock to the first live waiter of its queue as
-- release.lua does. The former holder learns of its loss at its next renewal or release,
-- which find its token gone. Read shares are left alone. The queue functions and the
-- shared-hold functions come from wait-queue.lua and shared-holds.lua, which it includes.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: the read shares, KEYS[6]: the tokens given back
-- Returns the last fencing token issued for the lock (0 when its fencing key is gone), or
-- -1 when the lock key did not exist and nothing was released.
--#include fencing-tokens.lua
--#include wait-queue.lua
--#include shared-holds.lua
if redis.call('exists', KEYS[1]) == 0 then
	return -1
end
local last = tonumber(redis.call('get', KEYS[2])) or 0
free_lock(redis.call('exists', KEYS[3]) == 1)
return last
