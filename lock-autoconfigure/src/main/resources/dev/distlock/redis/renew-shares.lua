-- Extends the entries of many shared holds (read shares, semaphore permits) in one round
-- trip, and with them how long their fencing keys remember the last token. A shared hold
-- is its token's entry in a sorted set of holders, scored by when the entry expires in
-- server milliseconds; the set lives as long as its longest entry.
-- KEYS[2i - 1]: the set of holders of hold i, KEYS[2i]: its fencing key (one Cluster slot
-- per call)
-- ARGV[1]: how long an entry lives in milliseconds, the lease plus the lock delay,
-- ARGV[2]: how long a fencing key lives in milliseconds, ARGV[3]: the lock delay in
-- milliseconds, ARGV[i + 3]: the token of hold i
-- Returns one number per hold: 1 when extended, 0 when its entry expired or was removed,
-- or when its lease ran out and only the lock delay keeps it, as renew.lua does for locks.
-- Like renew.lua, it never shortens an entry, its set or its fencing key.
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local life = tonumber(ARGV[1])
local delay = tonumber(ARGV[3])
local renewed = {}
for i = 1, #KEYS / 2 do
	local holders = KEYS[2 * i - 1]
	local expiry = tonumber(redis.call('zscore', holders, ARGV[i + 3]))
	if expiry and expiry - now > delay then
		if expiry < now + life then
			redis.call('zadd', holders, 'XX', now + life, ARGV[i + 3])
		end
		if redis.call('pttl', holders) < life then
			redis.call('pexpire', holders, life)
		end
		if redis.call('pttl', KEYS[2 * i]) < tonumber(ARGV[2]) then
			redis.call('pexpire', KEYS[2 * i], ARGV[2])
		end
		renewed[i] = 1
	else
		renewed[i] = 0
	end
end
return renewed
