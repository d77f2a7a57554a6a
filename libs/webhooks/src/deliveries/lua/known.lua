-- Returns 1 for each attempt the gate knows (parked, or holding a slot), 0 otherwise. Runs alone.
-- KEYS[1] the webhook's slots, KEYS[2] its parked attempts. ARGV: the attempts.
local known = {}
for i, member in ipairs(ARGV) do
  known[i] = (redis.call('ZSCORE', KEYS[2], member) or redis.call('ZSCORE', KEYS[1], member)) and 1 or 0
end
return known
