-- Gives an attempt's slot back, counts its result in the circuit, hands free slots on. After prelude.lua.
-- ARGV: webhook, attempt, result (succeeded | failed | not-sent), limit, lease ms, failures that open,
-- cool-down ms.
local webhook, member, result = ARGV[1], ARGV[2], ARGV[3]
local limit, lease, failures_to_open, cool_down = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local now = now_ms()
redis.call('ZREM', KEYS[1], member)
local opened = 0
local was_probe = redis.call('HGET', KEYS[3], 'probe') == member
if result == 'succeeded' then
  redis.call('DEL', KEYS[3])
elseif result == 'failed' then
  local failures = redis.call('HINCRBY', KEYS[3], 'failures', 1)
  local open_until = num(redis.call('HGET', KEYS[3], 'open_until'))
  if was_probe or (open_until == 0 and failures >= failures_to_open) then
    opened = now + cool_down
    redis.call('HSET', KEYS[3], 'open_until', opened)
    redis.call('HDEL', KEYS[3], 'probe', 'probe_until')
  end
  redis.call('PEXPIRE', KEYS[3], KEEP)
elseif was_probe then
  redis.call('HDEL', KEYS[3], 'probe', 'probe_until')
end
return {opened, hand_over(now, webhook, limit, lease)}
