import { createHash } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE, type Query } from './support/database.js';

const ROLLED_BACK = new Error('rolled back on purpose');
const BIND = 'SELECT key_id FROM app_authorize_api_key($1, NULL, NULL, NULL, false, true)';

/**
 * A store key's credits and posts against the database alone: transactions of the request login bound
 * to a key exactly as a key's request is, calling the ledger functions with no guard in the way. A key
 * charges only its own store and only with `ai`, refunds only its own charge, and a post it writes
 * names it as the author.
 */
describe('store keys: credits and posts in the database', () => {
  let api: TestApp;
  let a: { token: string; storeId: string };
  let b: { token: string; storeId: string };
  const keys: Record<'ai' | 'otherAi' | 'catalog' | 'social', { id: string; secret: string }> = {} as never;
  const system = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  /** Runs `work` bound to the key whose secret is `secret`, as its request would be; rolls back when asked. */
  const asKey = async <T>(secret: string, work: (query: Query) => Promise<T>, rollback = false): Promise<T> => {
    let result: T;
    const hash = createHash('sha256').update(secret).digest('hex');
    try {
      await api.app.get<DataSource>(getDataSourceToken()).transaction(async (manager) => {
        const bound = await manager.query(BIND, [hash]);
        if (bound.length !== 1) throw new Error('the key could not be bound');
        result = await work((sql, params) => manager.query(sql, params));
        if (rollback) throw ROLLED_BACK;
      });
    } catch (error) {
      if (error !== ROLLED_BACK) throw error;
    }
    return result!;
  };
  const charge = (storeId: string) => (q: Query) =>
    q(`SELECT outcome, charge_id FROM app_charge_credits($1, 'generate-blog-autopilot', 'db-test')`, [storeId]).then(
      (rows: { outcome: string; charge_id: string | null }[]) => rows[0],
    );
  const refund = (chargeId: string) => async (q: Query) => {
    const rows: { balance: number | null }[] = await q('SELECT app_refund_credits($1) AS balance', [chargeId]);
    return rows[0].balance;
  };
  const balanceOf = async (storeId: string) => {
    const sql = 'SELECT balance FROM credit_accounts WHERE store_id = $1';
    const rows: { balance: number }[] = await system().query(sql, [storeId]);
    return rows[0].balance;
  };
  const refunds = async (chargeId: string) => {
    const sql = 'SELECT count(*)::int AS n FROM credit_ledger WHERE refund_of = $1';
    const rows: { n: number }[] = await system().query(sql, [chargeId]);
    return rows[0].n;
  };

  beforeAll(async () => {
    api = await startApp();
    a = await merchantWithStore(api, 'Credit key store A');
    b = await merchantWithStore(api, 'Credit key store B');
    const make = async (permissions: string[]) => {
      const made = await api.request('POST', `/functions/v1/stores/${a.storeId}/api-keys`, {
        token: a.token,
        body: { name: 'DB', permissions },
      });
      return { id: made.body.api_key.id as string, secret: made.body.secret as string };
    };
    keys.ai = await make(['ai']);
    keys.otherAi = await make(['ai', 'billing']);
    keys.catalog = await make(['catalog', 'billing', 'social']);
    keys.social = await make(['social']);
  });
  afterAll(() => api?.close());

  it('a key holding ai charges its own store, recorded as the actor, and refunds that charge once', async () => {
    const before = await balanceOf(a.storeId);
    const charged = await asKey(keys.ai.secret, charge(a.storeId));
    expect(charged.outcome).toBe('charged');
    const sql = 'SELECT store_id, created_by, api_key_id, amount FROM credit_ledger WHERE id = $1';
    const [row] = await system().query(sql, [charged.charge_id]);
    expect(row).toEqual({ store_id: a.storeId, created_by: null, api_key_id: keys.ai.id, amount: -5 });
    expect(await balanceOf(a.storeId)).toBe(before - 5);
    expect(await asKey(keys.ai.secret, refund(charged.charge_id!))).toBe(before);
    // Again: nothing more is given back.
    expect(await asKey(keys.ai.secret, refund(charged.charge_id!))).toBe(before);
    expect(await refunds(charged.charge_id!)).toBe(1);
  });

  it('cannot charge another store, nor its own store without ai', async () => {
    const [balanceA, balanceB] = [await balanceOf(a.storeId), await balanceOf(b.storeId)];
    expect((await asKey(keys.ai.secret, charge(b.storeId))).outcome).toBe('forbidden');
    expect((await asKey(keys.catalog.secret, charge(a.storeId))).outcome).toBe('forbidden');
    expect([await balanceOf(a.storeId), await balanceOf(b.storeId)]).toEqual([balanceA, balanceB]);
    const sql = `SELECT 1 FROM credit_ledger WHERE store_id = $1 AND kind = 'charge'`;
    const written = await system().query(sql, [b.storeId]);
    expect(written).toHaveLength(0);
  });

  it("refunds no one else's charge: not the owner's, not another key's; the owner cannot refund a key's", async () => {
    const ownerCharge = await asRequest(api, a.token, charge(a.storeId));
    const keyCharge = await asKey(keys.ai.secret, charge(a.storeId));
    expect([ownerCharge.outcome, keyCharge.outcome]).toEqual(['charged', 'charged']);
    expect(await asKey(keys.ai.secret, refund(ownerCharge.charge_id!))).toBeNull();
    expect(await asKey(keys.otherAi.secret, refund(keyCharge.charge_id!))).toBeNull();
    expect(await asKey(keys.catalog.secret, refund(keyCharge.charge_id!))).toBeNull();
    expect(await asRequest(api, a.token, refund(keyCharge.charge_id!))).toBeNull();
    // A key that sets another key's id after binding is nobody: its MAC no longer verifies.
    const forged = await asKey(keys.otherAi.secret, async (q) => {
      await q(`SELECT set_config('app.api_key_id', $1, true)`, [keys.ai.id]);
      return refund(keyCharge.charge_id!)(q);
    });
    expect(forged).toBeNull();
    expect([await refunds(ownerCharge.charge_id!), await refunds(keyCharge.charge_id!)]).toEqual([0, 0]);
    // Each caller's own charge is theirs to refund.
    expect(await asRequest(api, a.token, refund(ownerCharge.charge_id!))).not.toBeNull();
    expect(await asKey(keys.ai.secret, refund(keyCharge.charge_id!))).not.toBeNull();
  });

  it('a post a key writes must name the key as its author, and no user', async () => {
    const [{ owner_id: owner }] = await system().query('SELECT owner_id FROM stores WHERE id = $1', [a.storeId]);
    const insert = (createdBy: string | null, keyId: string | null) => (q: Query) =>
      q(
        `INSERT INTO social_posts (store_id, created_by, api_key_id, platforms, content, status)
         VALUES ($1, $2, $3, '{x}', '{}', 'scheduled') RETURNING api_key_id`,
        [a.storeId, createdBy, keyId],
      );
    await expect(asKey(keys.social.secret, insert(owner, null))).rejects.toThrow(/row-level security/);
    await expect(asKey(keys.social.secret, insert(null, keys.ai.id))).rejects.toThrow(/row-level security/);
    await expect(asKey(keys.social.secret, insert(null, null))).rejects.toThrow(/row-level security/);
    await expect(asRequest(api, a.token, insert(owner, keys.social.id))).rejects.toThrow(/row-level security/);
    const [row] = await asKey(keys.social.secret, insert(null, keys.social.id), true);
    expect(row.api_key_id).toBe(keys.social.id);
    // A key without social writes no post even naming itself.
    await expect(asKey(keys.ai.secret, insert(null, keys.ai.id))).rejects.toThrow(/row-level security/);
  });
});
