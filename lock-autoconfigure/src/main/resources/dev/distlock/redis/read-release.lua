-- Releases a read share of a read/write lock only while it is live, or gives back the
-- token of a reader that gives up: takes it out of the lock's queue and passes on a grant
-- of the lock made to it. The last reader out, while no writer holds the lock, grants it
-- to the first live waiter (a writer that waited for the readers). The queue functions
-- and the shared-hold functions come from wait-queue.lua and shared-holds.lua, which it
-- includes.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: its read shares, KEYS[6]: the tokens given back
-- ARGV[1]: the reader's token, ARGV[2]: the share's lock delay in milliseconds (0: none),
-- ARGV[3]: '1' when the holder knows its lease is over (lost, or run out), ARGV[4]: when
-- the caller gives back a token nobody holds, how long it stays marked given back, in
-- milliseconds (0: a release)
-- Returns 1 when the reader still held its share, 2 when it held it but its lease was
-- over and the lock delay keeps writers out for the rest of the share's life, 0 when it
-- had expired or been removed, or was a grant of the lock.
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
local now_millis = millis_of(server_micros())
local released = 0
if redis.call('get', KEYS[1]) == ARGV[1] then
	redis.call('del', KEYS[1])
else
	released = release_entry(ARGV[1], now_millis, tonumber(ARGV[2]), ARGV[3] == '1')
	if released ~= 1 then
		return released
	end
end
if queued and redis.call('exists', KEYS[1]) == 0 and live_holders(now_millis) == 0 then
	grant_next()
end
return released
