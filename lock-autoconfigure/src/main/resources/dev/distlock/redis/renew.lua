-- Extends the leases of many held locks in one round trip.
-- KEYS: the lock keys (one Cluster slot per call)
-- ARGV[1]: the lease in milliseconds, ARGV[i + 1]: the token held under KEYS[i]
-- Returns one number per key: 1 when extended, 0 when the lock expired or was taken over.
local lease = ARGV[1]
local renewed = {}
for i, key in ipairs(KEYS) do
	if redis.call('get', key) == ARGV[i + 1] then
		redis.call('pexpire', key, lease)
		renewed[i] = 1
	else
		renewed[i] = 0
	end
end
return renewed
