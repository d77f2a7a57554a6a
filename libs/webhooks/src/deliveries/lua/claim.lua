-- Takes a slot for an attempt, or parks it. After prelude.lua.
-- ARGV: webhook, attempt, limit, lease ms, due (epoch ms, the parking order),
-- handed ('1': a release gave it this slot).
local webhook, member, limit, lease, due, handed = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6]
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], member) then
  if handed ~= '1' then return {0, 'duplicate'} end
  redis.call('ZADD', KEYS[1], now + lease, member)
  if redis.call('HGET', KEYS[3], 'probe') == member then return {1, 'probe'} end
  return {1, 'ok'}
end
local function park(reason)
  redis.call('ZADD', KEYS[2], 'NX', due, member)
  redis.call('PEXPIRE', KEYS[2], KEEP)
  redis.call('SADD', KEYS[4], webhook)
  return {0, reason}
end
local open_until = num(redis.call('HGET', KEYS[3], 'open_until'))
if open_until > 0 then
  if now < open_until then return park('open') end
  if num(redis.call('HGET', KEYS[3], 'probe_until')) > now then return park('probing') end
  redis.call('HSET', KEYS[3], 'probe', member, 'probe_until', now + lease)
  redis.call('ZADD', KEYS[1], now + lease, member)
  redis.call('ZREM', KEYS[2], member)
  return {1, 'probe'}
end
if redis.call('ZCARD', KEYS[1]) >= limit then return park('busy') end
redis.call('ZADD', KEYS[1], now + lease, member)
redis.call('PEXPIRE', KEYS[1], KEEP)
redis.call('ZREM', KEYS[2], member)
return {1, 'ok'}
