-- Shared holds (read shares, semaphore permits): the scripts that take or release one
-- include this text, after fencing-tokens.lua and wait-queue.lua; so do the scripts
-- that acquire and release a lock, the write side of the read/write lock of its name,
-- which waits for the lock's read shares.
-- KEYS[1]: the key of the read/write lock or semaphore, whose queue (KEYS[3], KEYS[4])
-- its waiters wait in, KEYS[2]: its fencing key, KEYS[5]: its set of holders, each
-- holder's token scored by when its entry expires in the server's milliseconds; the set
-- lives as long as its longest entry.

-- Returns the server's clock in milliseconds, from a reading in microseconds.
local function millis_of(micros)
	return math.floor(micros / 1000)
end

-- Drops the entries whose lease ran out (the share or permit of a holder that died) and
-- returns how many holders are left.
local function live_holders(now_millis)
	redis.call('zremrangebyscore', KEYS[5], '-inf', now_millis)
	return redis.call('zcard', KEYS[5])
end

-- Returns whether nobody live waits in the queue before the caller: no barging.
local function first_in_line(token, now)
	local first = first_live(now)
	return not first or first == token
end

-- Admits the caller: its entry in the set of holders for the given life, out of the
-- queue, and, when the caller leaves room for more, the next waiter woken to try too.
-- Returns the caller's fencing token.
local function admit(token, now_millis, life, fence_millis, room_left)
	redis.call('zadd', KEYS[5], string.format('%.0f', now_millis + life), token)
	if redis.call('pttl', KEYS[5]) < life then
		redis.call('pexpire', KEYS[5], life)
	end
	if redis.call('exists', KEYS[3]) == 1 then
		leave(token)
		if room_left then
			wake_first()
		end
	end
	return issue_token(KEYS[2], fence_millis)
end

-- Takes a holder's entry out of the set of holders while it is live. Returns 1 when it
-- was, 2 when it was but its lease was over and the lock delay keeps its place for the
-- rest of its life, 0 when it had expired or been removed. An entry kept for its lock
-- delay is renamed, so that a renewal sent before the release and arriving after it
-- cannot extend it again; the set keeps its life meanwhile.
local function release_entry(token, now_millis, delay, lease_over)
	local expiry = tonumber(redis.call('zscore', KEYS[5], token))
	if not expiry or expiry <= now_millis then
		redis.call('zrem', KEYS[5], token)
		return 0
	end
	local released = 1
	if delay > 0 and (lease_over or expiry - now_millis <= delay) then
		-- Added before the entry goes, so that the set is never empty and keeps its life
		redis.call('zadd', KEYS[5], string.format('%.0f', expiry), 'released:' .. token)
		released = 2
	end
	redis.call('zrem', KEYS[5], token)
	return released
end

-- Refuses the caller, who waits in the queue or leaves it as it asks. Returns minus the
-- milliseconds until the first holder's entry expires (at least 1), for the caller's
-- next re-check, or 0 when no holder is left.
local function refuse(token, now, waits, entry_millis, grant_terms, channel)
	if waits == '1' then
		enqueue(token, now, entry_millis, grant_terms, channel)
	else
		leave(token)
	end
	local first = redis.call('zrange', KEYS[5], 0, 0, 'WITHSCORES')[2]
	if not first then
		return 0
	end
	return -math.max(1, tonumber(first) - millis_of(now))
end

-- Frees a lock released now (by its holder, or forced by an operator): grants it to the
-- first live waiter of the queue while no reader holds it, or deletes its key, waking the
-- first waiter while readers do (it comes in if it reads).
local function free_lock(queued)
	if not queued then
		redis.call('del', KEYS[1])
	elseif live_holders(millis_of(server_micros())) > 0 then
		redis.call('del', KEYS[1])
		wake_first()
	elseif not grant_next() then
		redis.call('del', KEYS[1])
	end
end
