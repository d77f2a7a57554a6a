-- Closes the circuit (failures, cool-down and probe forgotten) of a re-enabled webhook. After prelude.lua.
-- Its slots stay: an attempt in flight keeps its own until it ends or its lease expires, so a reset never
-- lets more than the limit be in flight. The parked attempts get the slots that are free, if any.
-- ARGV: webhook, limit, lease ms.
redis.call('DEL', KEYS[3])
return hand_over(now_ms(), ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
