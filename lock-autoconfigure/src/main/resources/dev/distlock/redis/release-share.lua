-- Releases a shared hold (a read share, a semaphore permit) only while the set of holders
-- still has the caller's entry, takes the caller out of the queue (a waiter that gives up
-- releases its own token too), and wakes the first live waiter to try again (the queue
-- and shared-hold functions come from wait-queue.lua and shared-holds.lua, which precede
-- this text).
-- KEYS[1]: the key of the read/write lock or semaphore, KEYS[2]: its fencing key, KEYS[3]
-- and KEYS[4]: its wait queue, KEYS[5]: its set of holders
-- ARGV[1]: the caller's token, ARGV[2]: the hold's lock delay in milliseconds (0: none),
-- ARGV[3]: '1' when the holder knows its lease is over (lost, or run out)
-- Returns 1 when the caller still held its entry, 2 when it held it but its lease was over
-- and the lock delay keeps its place from everyone for the rest of the entry's life, 0
-- when the entry had expired or been removed.
-- An entry kept for its lock delay is renamed, so that a renewal sent before the release
-- and arriving after it cannot extend it again.
local queued = redis.call('exists', KEYS[3]) == 1
if queued then
	leave(ARGV[1])
end
local now_millis = millis_of(server_micros())
local expiry = tonumber(redis.call('zscore', KEYS[5], ARGV[1]))
if not expiry or expiry <= now_millis then
	redis.call('zrem', KEYS[5], ARGV[1])
	return 0
end
local released = 1
local delay = tonumber(ARGV[2])
if delay > 0 and (ARGV[3] == '1' or expiry - now_millis <= delay) then
	-- Added before the entry goes, so that the set is never empty and keeps its life
	redis.call('zadd', KEYS[5], string.format('%.0f', expiry), 'released:' .. ARGV[1])
	released = 2
end
redis.call('zrem', KEYS[5], ARGV[1])
if queued then
	wake_first()
end
return released
