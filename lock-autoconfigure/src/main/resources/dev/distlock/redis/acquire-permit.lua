-- Takes a permit of a semaphore, or waits for one in the semaphore's queue, in one round
-- trip (issue_token, the queue functions and the shared-hold functions come from
-- fencing-tokens.lua, wait-queue.lua and shared-holds.lua, which it includes).
-- KEYS[1]: the semaphore's key (never written), KEYS[2]: its fencing key, KEYS[3] and
-- KEYS[4]: its wait queue, KEYS[5]: its set of permit holders, KEYS[6]: the tokens given
-- back
-- ARGV[1]: the caller's random token, ARGV[2]: how long the permit's entry lives in
-- milliseconds, the lease plus the lock delay, ARGV[3]: how long the fencing key lives in
-- milliseconds, ARGV[4]: '1' to wait in the queue, '0' to leave it, ARGV[5]: how long a
-- queue entry lives without being renewed, in milliseconds, ARGV[6]: the caller's grant
-- terms, kept in its queue entry (wait-queue.lua), ARGV[7]: the channel of the caller's
-- process ('' when it polls), ARGV[8]: the permits the caller counts with
-- Returns the permit's fencing token (> 0) when fewer holders than the permits hold one
-- and nobody live waits before the caller; otherwise minus the milliseconds until the
-- first holder's entry expires (0 when unknown), for the caller's next re-check.
-- Each attempt counts against the permits it passes: callers that pass different numbers
-- for one semaphore each take a permit while fewer holders than their own number hold one.
-- An attempt whose token was given back (it reached Redis after the give-back, which was
-- sent after it on another connection) takes nothing: returns 0.
--#include fencing-tokens.lua
--#include wait-queue.lua
--#include shared-holds.lua
if given_back(ARGV[1]) then
	return 0
end
local now = server_micros()
local now_millis = millis_of(now)
local held = live_holders(now_millis)
local permits = tonumber(ARGV[8])
if held < permits and first_in_line(ARGV[1], now) then
	return admit(ARGV[1], now_millis, tonumber(ARGV[2]), ARGV[3], held + 1 < permits)
end
return refuse(ARGV[1], now, ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7])
