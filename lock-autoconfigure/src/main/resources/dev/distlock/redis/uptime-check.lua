-- Refuses, before the script that follows this text runs, on a node of a Redlock quorum
-- that has been up for less than the given time: a restart may have lost the holds it
-- granted before, so it counts towards no majority until they would have run out.
-- LASTSAVE answers most attempts alone, cheaply: it is the time of the last save, or of
-- the server's start when none was made since, so a server whose LASTSAVE is that long ago
-- has been up that long. Only while a save is recent (or the server young) does INFO's
-- uptime_in_seconds, which starts again at 0 with every start of the server, as its run_id
-- changes, decide. Both count whole seconds, which may overstate the time since the start
-- by up to a second: that second is not counted.
-- ARGV[#ARGV - 1]: how long the server must have been up, in milliseconds, after the
-- arguments of the script that follows and before the token floor (token-floor.lua)
-- Returns 0, as that script does when it takes nothing, while the server is younger; no
-- minimum (0) asks nothing, also of a server started within the second.
local min_uptime_millis = tonumber(ARGV[#ARGV - 1])
local function up_for(seconds)
	return (seconds - 1) * 1000 >= min_uptime_millis
end
if min_uptime_millis > 0 and not up_for(tonumber(redis.call('time')[1]) - redis.call('lastsave'))
		and not up_for(tonumber(string.match(redis.call('info', 'server'), 'uptime_in_seconds:(%d+)'))) then
	return 0
end
