-- Refuses, before the script that follows this text runs, on a node of a Redlock quorum
-- that has been up for less than the given time: a restart may have lost the holds it
-- granted before, so it counts towards no majority until they would have run out.
-- INFO's uptime_in_seconds starts again at 0 with every start of the server, as its
-- run_id changes; whole seconds round the uptime down.
-- ARGV[#ARGV - 1]: how long the server must have been up, in milliseconds, after the
-- arguments of the script that follows and before the token floor (token-floor.lua)
-- Returns 0, as that script does when it takes nothing, while the server is younger.
local uptime = tonumber(string.match(redis.call('info', 'server'), 'uptime_in_seconds:(%d+)'))
if uptime * 1000 < tonumber(ARGV[#ARGV - 1]) then
	return 0
end
