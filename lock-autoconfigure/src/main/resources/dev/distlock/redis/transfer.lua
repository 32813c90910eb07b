-- Hands a held lock straight to the next holder in the same JVM, in one round trip instead
-- of a release and an acquire, issuing the next holder's fencing token and taking it out
-- of the lock's wait queue, where it keeps its place when the transfer fails (hold, which
-- starts the next holder's hold, and the lock delay's check come from wait-queue.lua and
-- lock-delay.lua, which it includes with fencing-tokens.lua).
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, KEYS[3] and KEYS[4]: its wait queue,
-- KEYS[6]: the tokens given back
-- ARGV[1]: the current holder's token, ARGV[2]: the next holder's token,
-- ARGV[3]: how long the key lives in milliseconds, the next holder's lease plus its lock
-- delay, ARGV[4]: how long the fencing key lives in milliseconds, ARGV[5]: the token the
-- next holder waited under in the queue, ARGV[6]: the current holder's lock delay in
-- milliseconds (0: none)
-- Returns the next holder's fencing token, or 0 when the current holder no longer held it,
-- when its lease was over (then the lock delay keeps the lock from everyone, the next
-- holder too, for the rest of the key's life, as release.lua does), or when the next
-- holder's token was given back: a transfer that reached Redis after the give-back of its
-- failure, sent after it on another connection, changes nothing.
--#include lock-delay.lua
--#include fencing-tokens.lua
--#include wait-queue.lua
if redis.call('get', KEYS[1]) ~= ARGV[1] or given_back(ARGV[2]) then
	return 0
end
if kept_by_delay(tonumber(ARGV[6]), false) then
	return 0
end
return hold(ARGV[2], ARGV[5], ARGV[3], ARGV[4])
