-- Admits a reader to a read/write lock, takes up a grant of the lock as a read share, or
-- waits in the lock's queue, in one round trip (issue_token, the queue functions and
-- the shared-hold functions come from fencing-tokens.lua, wait-queue.lua and
-- shared-holds.lua, which it includes). The write side is the lock itself: the lock
-- key holds the writer's token.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: its read shares, KEYS[6]: the tokens given back
-- ARGV[1]: the reader's random token, ARGV[2]: how long the share lives in milliseconds,
-- the lease plus the lock delay, ARGV[3]: how long the fencing key lives in milliseconds,
-- ARGV[4]: '1' to wait in the queue, '0' to leave it, ARGV[5]: how long a queue entry
-- lives without being renewed, in milliseconds, ARGV[6]: the reader's grant terms, kept
-- in its queue entry (wait-queue.lua), ARGV[7]: the channel of the reader's process
-- ('' when it polls), ARGV[8]: the token of the write lock that the reader's own thread
-- holds ('' when none)
-- Returns the share's fencing token (> 0) when the reader is admitted: no writer holds
-- the lock and no live waiter is queued before the reader (a writer waiting keeps later
-- readers out), or the reader's own thread holds the write lock (a downgrade), or a
-- release granted the lock to the reader, who turns the grant into a share; otherwise
-- minus the milliseconds until the first share expires (0 when none), for the reader's
-- next re-check. A reader admitted to a lock that no writer holds wakes the first waiter
-- left, which comes in too if it reads: readers queued behind each other come in one
-- after the other. A lock that nobody holds, reads or takes up is granted to the first
-- waiter. An attempt whose token was given back (it reached Redis after the give-back, which
-- was sent after it on another connection) takes nothing: returns 0.
--#include fencing-tokens.lua
--#include wait-queue.lua
--#include shared-holds.lua
if given_back(ARGV[1]) then
	return 0
end
local now = server_micros()
local now_millis = millis_of(now)
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
	redis.call('del', KEYS[1])
elseif holder ~= ARGV[8] and (holder or not first_in_line(ARGV[1], now)) then
	if not holder and live_holders(now_millis) == 0 then
		grant_next()
	end
	return refuse(ARGV[1], now, ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7])
end
live_holders(now_millis)
return admit(ARGV[1], now_millis, tonumber(ARGV[2]), ARGV[3], holder ~= ARGV[8])
