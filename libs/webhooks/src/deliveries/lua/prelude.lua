-- The start of every script of the endpoint gate (endpoint-gate.ts) but known.lua.
-- KEYS[1] the webhook's slots (attempt → lease end), KEYS[2] its parked attempts (attempt → when it was
-- due, oldest first), KEYS[3] its circuit (failures, open_until, probe, probe_until), KEYS[4] the set of
-- webhooks with parked attempts. Time is Redis's own, the same for every worker process.

-- Keys live a week past their last write: long after any backlog, short enough to clean up a deleted webhook's.
local KEEP = 7 * 24 * 3600 * 1000
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function num(value) return tonumber(value or '0') or 0 end
-- Free slots (or, once an open circuit's cool-down is over, its one probe) go to the oldest parked attempts.
local function hand_over(now, webhook, limit, lease)
  local handed = {}
  local open_until = num(redis.call('HGET', KEYS[3], 'open_until'))
  local free
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if open_until > 0 then
    if now < open_until or num(redis.call('HGET', KEYS[3], 'probe_until')) > now then return handed end
    free = 1
  else
    free = limit - redis.call('ZCARD', KEYS[1])
  end
  while free > 0 do
    local oldest = redis.call('ZPOPMIN', KEYS[2])
    if #oldest == 0 then break end
    redis.call('ZADD', KEYS[1], now + lease, oldest[1])
    redis.call('PEXPIRE', KEYS[1], KEEP)
    if open_until > 0 then redis.call('HSET', KEYS[3], 'probe', oldest[1], 'probe_until', now + lease) end
    handed[#handed + 1] = oldest[1]
    free = free - 1
  end
  if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('SREM', KEYS[4], webhook) end
  return handed
end
