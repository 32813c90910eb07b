-- Records a fencing token as the highest seen for a resource, or refuses it if a higher
-- one was recorded; when it records the token and a key is given, it also sets that key,
-- so that the check and the write are one atomic step.
--
-- KEYS[1]  the resource's highest token
-- KEYS[2]  optional: the key to write
-- ARGV[1]  the writer's fencing token
-- ARGV[2]  the value for KEYS[2]
--
-- Returns the resource's highest token after the call: ARGV[1] if it was recorded, the
-- higher token that refused it otherwise.
local highest = tonumber(redis.call('GET', KEYS[1]))
local token = tonumber(ARGV[1])
if highest and token < highest then
	return highest
end
redis.call('SET', KEYS[1], ARGV[1])
if KEYS[2] then
	redis.call('SET', KEYS[2], ARGV[2])
end
return token
