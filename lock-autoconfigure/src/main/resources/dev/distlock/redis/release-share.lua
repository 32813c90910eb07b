-- Releases a shared hold (a semaphore permit; a read share has read-release.lua) only while the set of holders
-- still has the caller's entry, takes the caller out of the queue (a waiter that gives up
-- releases its own token too), and wakes the first live waiter to try again (the queue
-- and shared-hold functions come from wait-queue.lua and shared-holds.lua, which it includes).
-- KEYS[1]: the key of the read/write lock or semaphore, KEYS[2]: its fencing key, KEYS[3]
-- and KEYS[4]: its wait queue, KEYS[5]: its set of holders, KEYS[6]: the tokens given
-- back
-- ARGV[1]: the caller's token, ARGV[2]: the hold's lock delay in milliseconds (0: none),
-- ARGV[3]: '1' when the holder knows its lease is over (lost, or run out), ARGV[4]: when
-- the caller gives back a token nobody holds, how long it stays marked given back, in
-- milliseconds (0: a release)
-- Returns 1 when the caller still held its entry, 2 when it held it but its lease was over
-- and the lock delay keeps its place from everyone for the rest of the entry's life, 0
-- when the entry had expired or been removed.
--#include fencing-tokens.lua
--#include wait-queue.lua
--#include shared-holds.lua
if ARGV[4] ~= '0' then
	bury(ARGV[1], tonumber(ARGV[4]))
end
local queued = redis.call('exists', KEYS[3]) == 1
if queued then
	leave(ARGV[1])
end
local released = release_entry(ARGV[1], millis_of(server_micros()), tonumber(ARGV[2]), ARGV[3] == '1')
if released ~= 0 and queued then
	wake_first()
end
return released
