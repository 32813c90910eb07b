-- Tells whether a lock is taken by anyone, and for how long unless renewed, in one round
-- trip. The lock is taken while its key exists: held, granted to a waiter that has not
-- taken the grant up yet, or kept for a minimum hold time or a lock delay after its
-- release (nobody can take it then either). Without the key, it is taken while a live
-- read share of the read/write lock of its name keeps writers out, until the longest of
-- them runs out. A semaphore's permits are not read: a semaphore is no lock.
-- KEYS[1]: the lock key, KEYS[2]: the read shares of the read/write lock whose write side
-- the lock is
-- Returns the milliseconds the lock stays taken unless renewed (at least 0), or -1 when
-- nothing takes it.
local ttl = redis.call('pttl', KEYS[1])
if ttl ~= -2 then
	return math.max(ttl, 0)
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
if last and last > now then
	return last - now
end
return -1
