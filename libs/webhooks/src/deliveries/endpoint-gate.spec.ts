import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { WebhooksConfig } from '../webhooks.config.js';
import { EndpointGate } from './endpoint-gate.js';

/** Records the scripts the gate defines; runs none of them (test/webhook-fairness.e2e-spec.ts does, on Redis). */
function recordingRedis(): { redis: Redis; defined: Map<string, { lua: string; numberOfKeys: number }> } {
  const defined = new Map<string, { lua: string; numberOfKeys: number }>();
  const redis = {
    defineCommand(name: string, definition: { lua: string; numberOfKeys: number }) {
      defined.set(name, definition);
    },
  };
  return { redis: redis as unknown as Redis, defined };
}

describe('EndpointGate scripts', () => {
  it('reads every script from its .lua file at construction, the prelude before each but known', () => {
    const { redis, defined } = recordingRedis();
    new EndpointGate(redis, new WebhooksConfig());
    expect([...defined.keys()].sort()).toEqual([
      'webhookGateClaim',
      'webhookGateClaimNew',
      'webhookGateKnown',
      'webhookGateRelease',
      'webhookGateReset',
      'webhookGateWake',
    ]);
    for (const [name, { lua, numberOfKeys }] of defined) {
      if (name === 'webhookGateKnown') {
        expect(numberOfKeys).toBe(2);
        expect(lua).not.toContain('local function hand_over');
        expect(lua).toContain("redis.call('ZSCORE', KEYS[2], member)");
      } else {
        expect(numberOfKeys).toBe(4);
        expect(lua.indexOf('local function hand_over')).toBeGreaterThan(-1);
        expect(lua.indexOf('local function hand_over')).toBeLessThan(lua.lastIndexOf('return '));
      }
    }
    expect(defined.get('webhookGateClaim')!.lua).toContain("return park('busy')");
    expect(defined.get('webhookGateRelease')!.lua).toContain("redis.call('HINCRBY', KEYS[3], 'failures', 1)");
    // Keys live a week past their last write.
    expect(defined.get('webhookGateWake')!.lua).toContain('local KEEP = 7 * 24 * 3600 * 1000');
  });
});
