-- Hands over what is free; returns the parked and in-flight counts too. After prelude.lua.
-- ARGV: webhook, limit, lease ms.
local handed = hand_over(now_ms(), ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return {redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[1]), handed}
