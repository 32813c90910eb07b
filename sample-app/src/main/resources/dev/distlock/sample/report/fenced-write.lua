-- Writes the fields of a hash only if the writer's fencing token is at least the highest
-- token written to it so far, so that a holder whose lock expired (paused, stalled) cannot
-- overwrite what a later holder wrote.
--
-- KEYS[1]  the hash; its field "token" holds the highest token written
-- ARGV[1]  the writer's fencing token
-- ARGV[2..] field, value, field, value, ...
--
-- Returns the hash's token after the call: ARGV[1] if the write was accepted, the higher
-- token that rejected it otherwise.
local highest = tonumber(redis.call('HGET', KEYS[1], 'token'))
local token = tonumber(ARGV[1])
if highest ~= nil and token < highest then
	return highest
end
redis.call('HSET', KEYS[1], 'token', ARGV[1], unpack(ARGV, 2))
return token
