import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis } from '@app/core';
import { webhooksConfig, type WebhooksConfig } from '../webhooks.config.js';

/** An attempt of a delivery, as the gate knows it: `<delivery id>:<attempt>`. */
export interface GateAttempt {
  deliveryId: string;
  attempt: number;
}

export type ClaimResult =
  /** A slot is this attempt's: send. `probe`: the one request of a half-open circuit. */
  | { granted: true; probe: boolean }
  /** Parked in the gate: the webhook's slots are taken (`busy`), its circuit is open, or its probe is out. */
  | { granted: false; reason: 'busy' | 'open' | 'probing' }
  /** Another job holds a slot for this very attempt: it sends, this one does nothing. */
  | { granted: false; reason: 'duplicate' };

/** What the attempt came to: a request answered 2xx, a request that failed, or no request at all. */
export type AttemptResult = 'succeeded' | 'failed' | 'not-sent';

export interface ReleaseResult {
  /** When the circuit this release opened half-opens (epoch ms), or null. */
  openedUntil: number | null;
  /** Parked attempts handed the slot(s) now free: enqueue them. */
  handed: GateAttempt[];
}

export interface GateState {
  parked: number;
  inFlight: number;
  handed: GateAttempt[];
}

/**
 * A slot given to an attempt is its lease for the request timeout + LEASE_MARGIN_MS. A job that starts
 * within FRESH_GRANT_MS of the grant still has more than the timeout left, so it sends without asking
 * the gate again (one Redis round trip less per delivery); a later one claims, which renews the lease.
 */
const LEASE_MARGIN_MS = 15_000;
export const FRESH_GRANT_MS = 5_000;

const PARKED_WEBHOOKS = 'webhook-gate:parked-webhooks';

/** Keys live a week past their last write: long after any backlog, short enough to clean up a deleted webhook's. */
const KEEP_MS = 7 * 24 * 3600 * 1000;

// Every script: KEYS[1] the webhook's slots (attempt → lease end), KEYS[2] its parked attempts (attempt →
// when it was due, oldest first), KEYS[3] its circuit (failures, open_until, probe, probe_until), KEYS[4]
// the set of webhooks with parked attempts. Time is Redis's own, the same for every worker process.
const PRELUDE = `
local KEEP = ${KEEP_MS}
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
`;

// ARGV: webhook, attempt, limit, lease ms, due (epoch ms, the parking order), handed ('1': a release gave it this slot).
const CLAIM = `${PRELUDE}
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
`;

// ARGV: webhook, limit, lease ms, due, then the first attempts of new deliveries, oldest first. Answers
// those given a slot (free slots, or a half-open circuit's probe); the others are parked, in order.
const CLAIM_NEW = `${PRELUDE}
local webhook, limit, lease, due = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
-- A thousandth of a millisecond apart: the batch keeps its order among the parked.
for i = 5, #ARGV do redis.call('ZADD', KEYS[2], 'NX', due + (i - 5) / 1000, ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], KEEP)
redis.call('SADD', KEYS[4], webhook)
return hand_over(now, webhook, limit, lease)
`;

// ARGV: webhook, attempt, result (succeeded | failed | not-sent), limit, lease ms, failures that open, cool-down ms.
const RELEASE = `${PRELUDE}
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
`;

// ARGV: webhook, limit, lease ms. Hands over what is free; answers the parked and in-flight counts too.
const WAKE = `${PRELUDE}
local handed = hand_over(now_ms(), ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return {redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[1]), handed}
`;

// ARGV: webhook, limit, lease ms. Closes the circuit (failures, cool-down and probe forgotten) of a re-enabled
// webhook. Its slots stay: an attempt in flight keeps its own until it ends or its lease expires, so a reset
// never lets more than the limit be in flight. The parked attempts get the slots that are free, if any.
const RESET = `${PRELUDE}
redis.call('DEL', KEYS[3])
return hand_over(now_ms(), ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
`;

// ARGV: attempts. Answers 1 for each the gate knows (parked, or holding a slot), 0 otherwise.
const KNOWN = `
local known = {}
for i, member in ipairs(ARGV) do
  known[i] = (redis.call('ZSCORE', KEYS[2], member) or redis.call('ZSCORE', KEYS[1], member)) and 1 or 0
end
return known
`;

type GateCommands = {
  webhookGateClaimNew(...args: (string | number)[]): Promise<string[]>;
  webhookGateClaim(...args: (string | number)[]): Promise<[number, string]>;
  webhookGateRelease(...args: (string | number)[]): Promise<[number, string[]]>;
  webhookGateWake(...args: (string | number)[]): Promise<[number, number, string[]]>;
  webhookGateKnown(...args: (string | number)[]): Promise<number[]>;
  webhookGateReset(...args: (string | number)[]): Promise<string[]>;
};

const toAttempt = (member: string): GateAttempt => {
  const [deliveryId, attempt] = member.split(':');
  return { deliveryId, attempt: Number(attempt) };
};

/**
 * Fair delivery between webhooks: per-webhook slots (WEBHOOK_ENDPOINT_CONCURRENCY requests in flight)
 * and a circuit breaker (WEBHOOK_CIRCUIT_FAILURES consecutive failures open it for
 * WEBHOOK_CIRCUIT_COOLDOWN_MS, then one probe), all in Redis and changed only by Lua scripts, so every
 * worker process sees and changes the same state atomically. An attempt refused a slot is parked here,
 * oldest first, and handed a slot when one frees (or as the probe once the cool-down is over): a slow
 * or failing receiver holds at most its own slots, never the worker's others.
 *
 * A slot is a lease (the request timeout plus a margin): a worker that dies mid-request frees it by
 * expiry. Redis losing this state loses no delivery: PostgreSQL still has them pending (parked ones
 * marked), and the delivery sweep enqueues whatever the gate no longer knows.
 */
@Injectable()
export class EndpointGate {
  private readonly commands: GateCommands;
  private readonly leaseMs: number;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
  ) {
    const define = (name: keyof GateCommands, lua: string, numberOfKeys: number) => {
      if (!(name in redis)) redis.defineCommand(name, { lua, numberOfKeys });
    };
    define('webhookGateClaimNew', CLAIM_NEW, 4);
    define('webhookGateClaim', CLAIM, 4);
    define('webhookGateRelease', RELEASE, 4);
    define('webhookGateWake', WAKE, 4);
    define('webhookGateKnown', KNOWN, 2);
    define('webhookGateReset', RESET, 4);
    this.commands = redis as unknown as GateCommands;
    this.leaseMs = config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  }

  private keys(webhookId: string): string[] {
    const base = `webhook-gate:{${webhookId}}`;
    return [`${base}:slots`, `${base}:parked`, `${base}:circuit`, PARKED_WEBHOOKS];
  }

  /**
   * Takes a slot for the attempt, or parks it. `dueAt` orders the parked (oldest first); `handed` says
   * a release gave this attempt its slot, which it then keeps.
   */
  async claim(webhookId: string, attempt: GateAttempt, dueAt: number, handed: boolean): Promise<ClaimResult> {
    const [granted, reason] = await this.commands.webhookGateClaim(
      ...this.keys(webhookId),
      webhookId,
      `${attempt.deliveryId}:${attempt.attempt}`,
      this.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      this.leaseMs,
      Math.round(dueAt),
      handed ? '1' : '0',
    );
    if (granted === 1) return { granted: true, probe: reason === 'probe' };
    return { granted: false, reason: reason as 'busy' | 'open' | 'probing' | 'duplicate' };
  }

  /**
   * The first attempts of a webhook's new deliveries, at dispatch: answers those that got a slot (send
   * them); the others are parked at once, behind any parked before, and never take a worker to find
   * their webhook busy. They keep the order given (the events').
   */
  async claimNew(webhookId: string, deliveryIds: string[], dueAt: number): Promise<string[]> {
    const granted = await this.commands.webhookGateClaimNew(
      ...this.keys(webhookId),
      webhookId,
      this.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      this.leaseMs,
      Math.round(dueAt),
      ...deliveryIds.map((id) => `${id}:1`),
    );
    return granted.map((member) => toAttempt(member).deliveryId);
  }

  /** Gives the slot back, with what the attempt came to (the circuit counts it), and hands free slots to parked attempts. */
  async release(webhookId: string, attempt: GateAttempt, result: AttemptResult): Promise<ReleaseResult> {
    const [opened, handed] = await this.commands.webhookGateRelease(
      ...this.keys(webhookId),
      webhookId,
      `${attempt.deliveryId}:${attempt.attempt}`,
      result,
      this.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      this.leaseMs,
      this.config.WEBHOOK_CIRCUIT_FAILURES,
      this.config.WEBHOOK_CIRCUIT_COOLDOWN_MS,
    );
    return { openedUntil: opened > 0 ? opened : null, handed: handed.map(toAttempt) };
  }

  /** Hands whatever is free (expired leases, a circuit whose cool-down is over) to parked attempts. */
  async wake(webhookId: string): Promise<GateState> {
    const [parked, inFlight, handed] = await this.commands.webhookGateWake(
      ...this.keys(webhookId),
      webhookId,
      this.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      this.leaseMs,
    );
    return { parked, inFlight, handed: handed.map(toAttempt) };
  }

  /**
   * Closes the webhook's circuit (it was re-enabled): no failure counted, no cool-down, no probe. Slots
   * leased by attempts in flight stay theirs (each gives its own back when it ends), so the webhook never
   * has more than WEBHOOK_ENDPOINT_CONCURRENCY requests in flight. Returns the parked attempts handed the
   * slots that are free: enqueue them.
   */
  async reset(webhookId: string): Promise<GateAttempt[]> {
    const handed = await this.commands.webhookGateReset(
      ...this.keys(webhookId),
      webhookId,
      this.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      this.leaseMs,
    );
    return handed.map(toAttempt);
  }

  /** Every attempt parked in the gate, of every webhook. */
  async parked(): Promise<GateAttempt[]> {
    const webhooks = await this.redis.smembers(PARKED_WEBHOOKS);
    if (webhooks.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const webhookId of webhooks) pipeline.zrange(this.keys(webhookId)[1], 0, -1);
    const results = (await pipeline.exec()) ?? [];
    return results.flatMap(([error, members]) => (error ? [] : (members as string[]).map(toAttempt)));
  }

  /** Which of these attempts the gate knows (parked or in flight); the others it has lost. */
  async known(webhookId: string, attempts: GateAttempt[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    const [slots, parked] = this.keys(webhookId);
    const flags = await this.commands.webhookGateKnown(slots, parked, ...attempts.map((a) => `${a.deliveryId}:${a.attempt}`));
    return flags.map((flag) => flag === 1);
  }
}
