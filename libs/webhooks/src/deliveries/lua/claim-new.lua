-- The first attempts of a webhook's new deliveries, at dispatch. After prelude.lua.
-- ARGV: webhook, limit, lease ms, due, then the attempts, oldest first. Returns those given a slot (free
-- slots, or a half-open circuit's probe); the others are parked, in order.
local webhook, limit, lease, due = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
-- A thousandth of a millisecond apart: the batch keeps its order among the parked.
for i = 5, #ARGV do redis.call('ZADD', KEYS[2], 'NX', due + (i - 5) / 1000, ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], KEEP)
redis.call('SADD', KEYS[4], webhook)
return hand_over(now, webhook, limit, lease)
