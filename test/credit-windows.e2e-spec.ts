import pg from 'pg';
import type { DataSource } from 'typeorm';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE, type Query } from './support/database.js';

const AUTOPILOT = 'generate-blog-autopilot';

/**
 * The two time windows of the credit ledger, at their edges: a charge counts towards its function's
 * hourly maximum for 60 minutes and no longer, and its own caller may refund it for 15 minutes and no
 * longer. Real charges are aged by moving their `created_at` back as the administrative login.
 */
describe('credit windows: the hourly maximum and the refund', () => {
  let api: TestApp;
  const system = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  /**
   * Moves charges `minutes` into the past. The ledger is append-only (a trigger refuses every update),
   * so the administrative login turns triggers off for this one transaction.
   */
  const age = async (chargeIds: string[], minutes: number) => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('SET LOCAL session_replication_role = replica');
      const moved = await admin.query(
        `UPDATE credit_ledger SET created_at = clock_timestamp() - make_interval(mins => $2)
          WHERE id = ANY ($1::uuid[]) AND kind = 'charge'`,
        [chargeIds, minutes],
      );
      expect(moved.rowCount).toBe(chargeIds.length);
      await admin.query('COMMIT');
    } finally {
      await admin.end();
    }
  };
  const chargesOf = async (storeId: string): Promise<string[]> => {
    const sql = `SELECT id FROM credit_ledger WHERE store_id = $1 AND kind = 'charge' ORDER BY created_at, id`;
    return (await system().query(sql, [storeId])).map((row: { id: string }) => row.id);
  };
  const balanceOf = async (storeId: string): Promise<number> =>
    (await system().query('SELECT balance FROM credit_accounts WHERE store_id = $1', [storeId]))[0].balance;
  const refundsOf = async (chargeId: string): Promise<number> =>
    (await system().query('SELECT count(*)::int AS n FROM credit_ledger WHERE refund_of = $1', [chargeId]))[0].n;
  const autopilot = (token: string, storeId: string) =>
    api.request('POST', `/functions/v1/${AUTOPILOT}`, {
      token,
      body: { topic: 'Caring for linen shirts', tone: 'friendly', length: 'short', language: 'en', store_id: storeId },
    });
  const usedLastHour = async (token: string, storeId: string): Promise<number> => {
    const credits = await api.request('GET', `/functions/v1/credits?store_id=${storeId}`, { token });
    return credits.body.usage[AUTOPILOT].used_last_hour;
  };

  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api?.close());

  it('a charge 61 minutes old no longer counts towards the hourly maximum; one 59 minutes old still does', async () => {
    const { token, storeId } = await merchantWithStore(api, 'Hourly window');
    // Two real calls, then one aged just past the hour and one just inside it.
    for (let i = 0; i < 2; i++) expect((await autopilot(token, storeId)).status).toBe(200);
    const [outside, inside] = await chargesOf(storeId);
    await age([outside], 61);
    await age([inside], 59);
    // And 18 more calls half an hour ago, arranged in SQL: with the one inside, 19 of the maximum of 20.
    await system().query(
      `INSERT INTO credit_ledger (store_id, kind, amount, function, reference, created_at)
       SELECT $1, 'charge', -5, $2, 'arranged', clock_timestamp() - interval '30 minutes' FROM generate_series(1, 18)`,
      [storeId, AUTOPILOT],
    );
    expect(await usedLastHour(token, storeId)).toBe(19);

    const twentieth = await autopilot(token, storeId);
    expect(twentieth.status, JSON.stringify(twentieth.body)).toBe(200);
    const over = await autopilot(token, storeId);
    expect(over.status).toBe(429);
    // The oldest call counted is the one 59 minutes old: it leaves the window within a minute.
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(30);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await usedLastHour(token, storeId)).toBe(20);
    expect(await balanceOf(storeId)).toBe(50 - 3 * 5);
  });

  it('refunding a charge 16 minutes old does nothing; one 14 minutes old is given back, once', async () => {
    const { token, storeId } = await merchantWithStore(api, 'Refund window');
    const charge = async (q: Query): Promise<{ outcome: string; charge_id: string }> =>
      (await q(`SELECT outcome, charge_id FROM app_charge_credits($1, $2, 'window-test')`, [storeId, AUTOPILOT]))[0];
    const refund = (chargeId: string) => async (q: Query) =>
      (await q('SELECT app_refund_credits($1) AS balance', [chargeId]))[0].balance as number | null;

    const old = await asRequest(api, token, charge);
    const recent = await asRequest(api, token, charge);
    expect([old.outcome, recent.outcome]).toEqual(['charged', 'charged']);
    await age([old.charge_id], 16);
    await age([recent.charge_id], 14);
    expect(await balanceOf(storeId)).toBe(40);

    expect(await asRequest(api, token, refund(old.charge_id))).toBeNull();
    expect(await refundsOf(old.charge_id)).toBe(0);
    expect(await balanceOf(storeId)).toBe(40);

    expect(await asRequest(api, token, refund(recent.charge_id))).toBe(45);
    expect(await refundsOf(recent.charge_id)).toBe(1);
    expect(await balanceOf(storeId)).toBe(45);
  });
});
