-- Raises, on a node of a Redlock quorum, the least fencing token that the script that
-- follows this text issues to the token the client proposes to every node of the quorum:
-- nodes whose clocks and last tokens are behind it all issue that same token, which is
-- then already in the fencing keys of the majority that granted the hold, and needs no
-- write-back. A token is still greater than the node's clock and its last token, whatever
-- the client proposes. A proposal more than 20 ms (twice the lead the client adds to its
-- clock) ahead of the node's clock is taken only up to that: a client whose clock runs
-- ahead must not put tokens in the fencing keys that tokens issued from the node's clock
-- after those keys expired, or after the node lost its data and waited a lease, stay
-- below. Included before the script that follows, whose own include of
-- fencing-tokens.lua then adds nothing.
-- ARGV[#ARGV]: the least token to issue, after the arguments of the script that follows
--#include fencing-tokens.lua
local now = redis.call('time')
token_floor = math.min(tonumber(ARGV[#ARGV]), tonumber(now[1]) * 1000000 + tonumber(now[2]) + 20000)
