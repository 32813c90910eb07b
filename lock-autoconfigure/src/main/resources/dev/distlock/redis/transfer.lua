-- Hands a held lock straight to the next holder in the same JVM, in one round trip instead
-- of a release and an acquire, issuing the next holder's fencing token (issue_tokens
-- comes from fencing-tokens.lua, which precedes this text).
-- KEYS[1]: the lock key, KEYS[2]: its fencing key, the helper key '<lock key>!fence'
-- or '{<lock key>}!fence' in the same Cluster slot, which no lock key can be
-- ARGV[1]: the current holder's token, ARGV[2]: the next holder's token,
-- ARGV[3]: how long the key lives in milliseconds, the next holder's lease plus its lock
-- delay, ARGV[4]: how long the fencing key lives in milliseconds
-- Returns the next holder's fencing token, or 0 when the current holder no longer held it.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	return 0
end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return issue_tokens(KEYS[2], 1, ARGV[4])
