import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * The gate's scripts, in ./lua beside this file (nest build copies them into dist); prelude.lua starts
 * all but known.lua.
 */
const LUA_FOLDER = fileURLToPath(new URL('./lua/', import.meta.url));
const readLua = (name: string) => fs.readFileSync(path.join(LUA_FOLDER, `${name}.lua`), 'utf8');

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
 * WEBHOOK_CIRCUIT_COOLDOWN_MS, then one probe), all in Redis and changed only by Lua scripts (./lua), so every
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
    // Read at start: a missing script fails the boot, not the first delivery.
    const prelude = readLua('prelude');
    const define = (name: keyof GateCommands, lua: string, numberOfKeys: number) => {
      if (!(name in redis)) redis.defineCommand(name, { lua, numberOfKeys });
    };
    const withPrelude = (script: string) => `${prelude}\n${readLua(script)}`;
    define('webhookGateClaimNew', withPrelude('claim-new'), 4);
    define('webhookGateClaim', withPrelude('claim'), 4);
    define('webhookGateRelease', withPrelude('release'), 4);
    define('webhookGateWake', withPrelude('wake'), 4);
    define('webhookGateKnown', readLua('known'), 2);
    define('webhookGateReset', withPrelude('reset'), 4);
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
   * The first attempts of a webhook's new deliveries, at dispatch: returns those that got a slot (send
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

  /**
   * Gives the slot back, with what the attempt came to (the circuit counts it), and hands free slots to parked
   * attempts.
   */
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
    const flags = await this.commands.webhookGateKnown(
      slots,
      parked,
      ...attempts.map((a) => `${a.deliveryId}:${a.attempt}`),
    );
    return flags.map((flag) => flag === 1);
  }
}
