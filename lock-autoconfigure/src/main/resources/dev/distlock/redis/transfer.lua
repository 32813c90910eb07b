-- Hands a held lock straight to the next holder in the same JVM, in one round trip instead
-- of a release and an acquire, issuing the next holder's fencing token.
-- KEYS[1]: the lock key, KEYS[2]: its fencing counter, the helper key '<lock key>!fence'
-- or '{<lock key>}!fence' in the same Cluster slot, which no lock key can be
-- ARGV[1]: the current holder's token, ARGV[2]: the next holder's token,
-- ARGV[3]: the next holder's lease in milliseconds
-- Returns the next holder's fencing token, or 0 when the current holder no longer held it.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
	return 0
end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return redis.call('incrby', KEYS[2], 1)
