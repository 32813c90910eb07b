-- The lock delay of a lock whose holder lets it go; the scripts that release or hand over a
-- lock (release.lua, transfer.lua) include this text before their first case.

-- Returns whether the lock delay keeps the lock from everyone, the next holder too, for the
-- rest of the key's life: the holder's lease is over (it knows so, or no more than the
-- delay is left of the key). The key then holds 'released' instead of the holder's token,
-- so that a renewal sent before and arriving after cannot extend it again.
local function kept_by_delay(delay, lease_over)
	if delay > 0 and (lease_over or redis.call('pttl', KEYS[1]) <= delay) then
		redis.call('set', KEYS[1], 'released', 'KEEPTTL')
		return true
	end
	return false
end
