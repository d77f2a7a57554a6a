import { ApiError, type SystemDb, type TenantDb } from '@app/core';
import { AI_FUNCTION_NAMES, CREDIT_COSTS } from './credit-costs.js';
import { CreditsService } from './credits.service.js';
import { billingConfig } from './billing.config.js';

const STORE = '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11';

/**
 * The ledger's decisions (the caller's `ai` permission, the hourly count, the balance) are taken by
 * the database functions app_charge_credits and app_grant_credits under the store's account lock;
 * the e2e tests run them on PostgreSQL. Here the transaction returns each verdict those functions
 * can give, and the service must turn it into the right answer for the client.
 */
function serviceAnswering(row: Record<string, unknown>) {
  const calls: { sql: string; parameters: unknown[] }[] = [];
  const tx = {
    query: async (sql: string, parameters: unknown[]) => {
      calls.push({ sql, parameters });
      return [row];
    },
  };
  const db = { tx } as unknown as TenantDb;
  const service = new CreditsService(db, {} as SystemDb, billingConfig.from({}));
  return { service, calls };
}

const verdict = (outcome: string, fields: Record<string, unknown> = {}) => ({
  outcome,
  charge_id: null,
  balance: null,
  used: null,
  retry_after: null,
  hourly_limit: 20,
  ...fields,
});

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('CreditsService.charge', () => {
  it('asks the database to charge the store for the function, as the caller, and answers what it took', async () => {
    const { service, calls } = serviceAnswering(verdict('charged', { charge_id: 'c1', balance: 45, used: 3 }));
    const charge = await service.charge(STORE, 'generate-blog-autopilot', 'req-1');
    expect(charge).toEqual({ id: 'c1', storeId: STORE, function: 'generate-blog-autopilot', amount: 5, balance: 45 });
    expect(calls).toEqual([
      { sql: 'SELECT * FROM app_charge_credits($1, $2, $3)', parameters: [STORE, 'generate-blog-autopilot', 'req-1'] },
    ]);
  });

  it('refuses a caller without the `ai` permission on the store (403)', async () => {
    const error = await refusal(serviceAnswering(verdict('forbidden')).service.charge(STORE, 'generate-product', null));
    expect(error.getStatus()).toBe(403);
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('"ai" permission');
  });

  it(
    'refuses a call over the hourly maximum (429) with ' + 'Retry-After until the oldest counted call leaves the hour',
    async () => {
      const { service } = serviceAnswering(
        verdict('rate_limited', { hourly_limit: 20, used: 20, retry_after: 1711.2 }),
      );
      const error = await refusal(service.charge(STORE, 'generate-blog-autopilot', null));
      expect(error.getStatus()).toBe(429);
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.headers).toEqual({ 'Retry-After': '1712' });
      expect(error.details).toEqual({ limit: 20, window_seconds: 3600, retry_after_seconds: 1712 });
    },
  );

  it('waits at least a second, and a whole hour when the database names no oldest call', async () => {
    const soon = await refusal(
      serviceAnswering(verdict('rate_limited', { retry_after: 0.2 })).service.charge(STORE, 'generate-product', null),
    );
    expect(soon.headers).toEqual({ 'Retry-After': '1' });
    const unknown = await refusal(
      serviceAnswering(verdict('rate_limited')).service.charge(STORE, 'generate-product', null),
    );
    expect(unknown.headers).toEqual({ 'Retry-After': '3600' });
  });

  it.each(AI_FUNCTION_NAMES)(
    'refuses %s when the balance is below its cost (402) with what it needs and what the store has',
    async (fn) => {
      const { service } = serviceAnswering(verdict('insufficient', { balance: CREDIT_COSTS[fn] - 1 }));
      const error = await refusal(service.charge(STORE, fn, null));
      expect(error.getStatus()).toBe(402);
      expect(error.code).toBe('INSUFFICIENT_CREDITS');
      expect(error.details).toEqual({ required: CREDIT_COSTS[fn], balance: CREDIT_COSTS[fn] - 1 });
    },
  );
});

describe('CreditsService.grant', () => {
  it('answers the new balance of a granted store', async () => {
    const { service, calls } = serviceAnswering({ outcome: 'granted', balance: 150 });
    expect(await service.grant(STORE, 100, 'Launch promotion')).toBe(150);
    expect(calls[0].parameters).toEqual([STORE, 100, 'Launch promotion']);
  });

  it.each([
    ['forbidden', 403, 'FORBIDDEN'],
    ['not_found', 404, 'NOT_FOUND'],
    ['too_large', 409, 'CONFLICT'],
  ])('turns the database verdict %s into %i %s', async (outcome, status, code) => {
    const error = await refusal(serviceAnswering({ outcome, balance: null }).service.grant(STORE, 100, 'x'));
    expect(error.getStatus()).toBe(status);
    expect(error.code).toBe(code);
  });
});
