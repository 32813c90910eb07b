-- Admits a reader to a read/write lock, takes up a grant of the lock as a read share, or
-- waits in the lock's queue, in one round trip (issue_tokens, the queue functions and
-- has_readers come from fencing-tokens.lua, wait-queue.lua and readers.lua, which
-- precede this text). The write side is the lock itself: the lock key holds the writer's
-- token.
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[5]: its read shares
-- ARGV[1]: the reader's random token, ARGV[2]: how long the share lives in milliseconds,
-- the lease plus the lock delay, ARGV[3]: how long the fencing key lives in milliseconds,
-- ARGV[4]: '1' to wait in the queue, '0' to leave it, ARGV[5]: how long a queue entry
-- lives without being renewed, in milliseconds, ARGV[6]: how long a grant waits for the
-- reader to take it up, in milliseconds, ARGV[7]: the channel of the reader's process
-- ('' when it polls), ARGV[8]: the token of the write lock held by the reader's own
-- thread ('' when none)
-- Returns the share's fencing token (> 0) when the reader is admitted: no writer holds
-- the lock and no live waiter is queued before the reader (a writer waiting keeps later
-- readers out), or the reader's own thread holds the write lock (a downgrade), or a
-- release granted the lock to the reader, who turns the grant into a share; otherwise
-- minus the milliseconds the lock key has left, or the read shares when no writer holds
-- it (0 when unknown), for the reader's next re-check. A reader admitted to a lock that
-- no writer holds wakes the first waiter left, which comes in too if it reads: readers
-- queued behind each other come in one after the other. Shares that expired are dropped.
local now = server_micros()
local holder = redis.call('get', KEYS[1])
local admitted = holder == ARGV[1] or holder == ARGV[8]
if holder == ARGV[1] then
	redis.call('del', KEYS[1])
elseif not holder then
	local first, claim, channel = first_live(now)
	if not first or first == ARGV[1] then
		admitted = true
	elseif not has_readers(now) then
		grant(first, claim, channel)
	end
end
if not admitted then
	if ARGV[4] == '1' then
		enqueue(ARGV[1], now, tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7])
	else
		leave(ARGV[1])
	end
	return -remaining_millis(ARGV[2])
end
leave(ARGV[1])
has_readers(now)
local life = tonumber(ARGV[2])
redis.call('zadd', KEYS[5], math.floor(now / 1000) + life, ARGV[1])
if redis.call('pttl', KEYS[5]) < life then
	redis.call('pexpire', KEYS[5], life)
end
local token = issue_tokens(KEYS[2], 1, ARGV[3])
if holder ~= ARGV[8] and redis.call('exists', KEYS[3]) == 1 then
	wake_first()
end
return token
