-- Raises, on a node of a Redlock quorum, the least fencing token that the script that
-- follows this text issues to the token the client proposes to every node of the quorum:
-- nodes whose clocks and last tokens are behind it all issue that same token, which is
-- then already in the fencing keys of the majority that granted the hold, and needs no
-- write-back. A token is still greater than the node's clock and its last token, whatever
-- the client proposes. Included before the script that follows, whose own include of
-- fencing-tokens.lua then adds nothing.
-- ARGV[#ARGV]: the least token to issue, after the arguments of the script that follows
--#include fencing-tokens.lua
token_floor = tonumber(ARGV[#ARGV])
