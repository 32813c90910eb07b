-- Extends the leases of many held locks in one round trip, and with them how long their
-- fencing keys remember the last token.
-- KEYS[2i - 1]: the lock key of lock i, KEYS[2i]: its fencing key (one Cluster slot per
-- call)
-- ARGV[1]: how long a key lives in milliseconds, the lease plus the lock delay,
-- ARGV[2]: how long a fencing key lives in milliseconds, ARGV[3]: the lock delay in
-- milliseconds, ARGV[i + 3]: the token held under lock i
-- Returns one number per lock: 1 when extended, 0 when the lock expired or was taken
-- over, or when its lease ran out and only the lock delay keeps it: a lease that ran out
-- is over, even for a holder that wakes up in time to renew it.
-- A key is never shortened: a renewal that reaches Redis after an extension to a longer
-- lease leaves the key, and its fencing key, as the extension set them.
local function extend(key, life)
	if redis.call('pttl', key) < tonumber(life) then
		redis.call('pexpire', key, life)
	end
end
local delay = tonumber(ARGV[3])
local renewed = {}
for i = 1, #KEYS / 2 do
	local key = KEYS[2 * i - 1]
	if redis.call('get', key) == ARGV[i + 3] and (delay == 0 or redis.call('pttl', key) > delay) then
		extend(key, ARGV[1])
		extend(KEYS[2 * i], ARGV[2])
		renewed[i] = 1
	else
		renewed[i] = 0
	end
end
return renewed
