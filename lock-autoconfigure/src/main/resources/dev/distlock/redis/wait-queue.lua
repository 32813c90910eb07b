-- The wait queue of a lock, in its Cluster slot; the scripts that touch it include this
-- text.
-- KEYS[3]: the waiters' tokens in order of arrival (a sorted set scored by the server's
-- clock in microseconds), KEYS[4]: each waiter's entry (a hash): under its token, when the
-- entry expires, in the server's milliseconds, how long a grant keeps the lock key for it
-- (its claim time plus its lock delay) and the channel its process listens on ('' when it
-- polls); under its token and '!start', how long its fencing key lives after a grant and
-- the number of the attempt that queued it, which a grant's message names so that the
-- waiter may start on it. The first field keeps the form earlier versions read, so that
-- their scripts and these share a queue. Both keys live as long as their latest entry and
-- are gone once the last waiter leaves. KEYS[6]: the tokens given back (a sorted set
-- scored by when each is forgotten, in the server's milliseconds), which lives as long as
-- its latest entry.

-- Returns the server's clock in microseconds.
local function server_micros()
	local time = redis.call('time')
	return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- Takes a waiter out of the queue. Returns whether it was in it.
local function leave(waiter)
	redis.call('hdel', KEYS[4], waiter, waiter .. '!start')
	return redis.call('zrem', KEYS[3], waiter) == 1
end

-- Returns the first waiter whose entry has not expired, with its claim time and channel,
-- dropping the expired ones before it; nil when none is left.
local function first_live(now)
	while true do
		local head = redis.call('zrange', KEYS[3], 0, 0)[1]
		if not head then
			return nil
		end
		local entry = redis.call('hget', KEYS[4], head)
		if entry then
			local expiry, claim, channel = string.match(entry, '^(%d+) (%d+) (.*)$')
			if tonumber(expiry) * 1000 > now then
				return head, claim, channel
			end
		end
		leave(head)
	end
end

-- Grants the lock to a live waiter: its token under the lock key for its claim time (plus
-- its lock delay), and one message to its process. When the waiter may start on it, the
-- grant issues its fencing token and the message names the lock key, the waiter, the
-- attempt that queued it and the fencing token: a waiter that hears it soon enough holds
-- at once and takes the grant up with a renewal, which extends the key to its lease. A
-- waiter that does not takes it up with its next attempt (acquire.lua), which issues a
-- fencing token of its own; so does one of an earlier version, told the lock key alone.
local function grant(waiter, claim, channel)
	local start = redis.call('hget', KEYS[4], waiter .. '!start')
	leave(waiter)
	redis.call('set', KEYS[1], waiter, 'PX', claim)
	if channel == '' then
		return
	end
	local fence_millis, attempt = string.match(start or '', '^(%d+) (%d+)$')
	if attempt then
		redis.call('publish', channel,
			string.format('%s!%s %s %.0f', KEYS[1], waiter, attempt, issue_token(KEYS[2], fence_millis)))
	else
		redis.call('publish', channel, KEYS[1])
	end
end

-- Starts a hold: the lock key holds the holder's token for the given milliseconds (its
-- lease plus its lock delay), the token it waited under leaves the queue (nil for a grant,
-- which left it when it was made), and its fencing token is issued now. Every way to the
-- lock but the uncontended acquire and a start on a grant's message (grant) ends here: a
-- free lock taken by the first in line, a grant taken up (acquire.lua), a local hand-over
-- (transfer.lua).
local function hold(token, waited_as, key_millis, fence_millis)
	if waited_as then
		leave(waited_as)
	end
	redis.call('set', KEYS[1], token, 'PX', key_millis)
	return issue_token(KEYS[2], fence_millis)
end

-- Grants the lock to the first live waiter. Returns false when nobody waits.
local function grant_next()
	local waiter, claim, channel = first_live(server_micros())
	if not waiter then
		return false
	end
	grant(waiter, claim, channel)
	return true
end

-- Wakes the first live waiter, without granting it the lock: it re-checks when the lock
-- key expires.
local function wake_first()
	local waiter, claim, channel = first_live(server_micros())
	if waiter and channel ~= '' then
		redis.call('publish', channel, KEYS[1])
	end
end

-- Puts a waiter at the end of the queue, or keeps its place, and renews its entry; its
-- grant terms are its claim time plus its lock delay, its fencing key's life and the
-- number of its attempt.
local function enqueue(waiter, now, entry_millis, grant_terms, channel)
	redis.call('zadd', KEYS[3], 'NX', now, waiter)
	local expiry = math.floor(now / 1000) + entry_millis
	local claim, start = string.match(grant_terms, '^(%d+) (.*)$')
	redis.call('hset', KEYS[4], waiter, string.format('%.0f %s %s', expiry, claim, channel), waiter .. '!start',
		start)
	redis.call('pexpire', KEYS[3], entry_millis)
	redis.call('pexpire', KEYS[4], entry_millis)
end

-- Marks a token given back for the given milliseconds, dropping the marks whose time is
-- over: an attempt under that token that reaches Redis after the give-back (sent before
-- it, on another connection) takes nothing.
local function bury(token, life)
	local now_millis = math.floor(server_micros() / 1000)
	redis.call('zremrangebyscore', KEYS[6], '-inf', now_millis)
	redis.call('zadd', KEYS[6], string.format('%.0f', now_millis + life), token)
	if redis.call('pttl', KEYS[6]) < life then
		redis.call('pexpire', KEYS[6], life)
	end
end

-- Returns whether a token was given back.
local function given_back(token)
	return redis.call('zscore', KEYS[6], token) ~= false
end
