-- Releases a lock only while it still holds the caller's token, granting it to the first
-- live waiter of its queue, and takes the caller out of the queue (a waiter that gives up
-- releases its own token). While readers hold the read/write lock whose write side the
-- lock is (its holder took the read lock too: a downgrade), it grants nothing and wakes
-- the first waiter, which comes in if it reads; so does a waiter that gives up while
-- readers hold the lock, since it may have kept readers behind it out. The queue
-- functions and the shared-hold functions come from wait-queue.lua and shared-holds.lua,
-- which it includes after the release of a lock that nobody waits for: that case needs
-- none of them, only the lock delay's check of lock-delay.lua, included first.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: the read shares, KEYS[6]: the tokens given back
-- ARGV[1]: the caller's token, ARGV[2]: milliseconds the lock must still be kept (0:
-- none), ARGV[3]: the hold's lock delay in milliseconds (0: none), ARGV[4]: '1' when the
-- holder knows its lease is over (lost, or run out), ARGV[5]: when the caller gives back a
-- token nobody holds, how long it stays marked given back, in milliseconds (0: a release)
-- Returns 1 when the caller still held the lock, 2 when it held it but its lease was over
-- and the lock delay keeps the lock from everyone for the rest of the key's life, 0 when
-- it had expired or been taken over.
-- A lock kept for its minimum hold time or its lock delay no longer holds the caller's
-- token, so that a renewal sent before the release and arriving after it cannot extend it
-- again; the first waiter is woken to re-check when it expires.
--#include lock-delay.lua
local queued = redis.call('exists', KEYS[3]) == 1
local released = 0
local free = false
if redis.call('get', KEYS[1]) == ARGV[1] then
	local keep = tonumber(ARGV[2])
	released = 1
	if kept_by_delay(tonumber(ARGV[3]), ARGV[4] == '1') then
		released = 2
	elseif keep > 0 then
		redis.call('set', KEYS[1], 'released', 'PX', keep)
	elseif queued then
		free = true
	else
		redis.call('del', KEYS[1])
	end
end
if not queued and ARGV[5] == '0' then
	return released
end
--#include fencing-tokens.lua
--#include wait-queue.lua
--#include shared-holds.lua
if ARGV[5] ~= '0' then
	bury(ARGV[1], tonumber(ARGV[5]))
end
local left = queued and leave(ARGV[1])
if released == 0 then
	if left and live_holders(millis_of(server_micros())) > 0 then
		wake_first()
	end
elseif free then
	free_lock(queued)
elseif queued then
	wake_first()
end
return released
