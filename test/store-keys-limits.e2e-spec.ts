import { randomBytes, randomInt } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * What a store's keys are held to: at most 50 live keys a store, and failed lookups per client address
 * (guessing keys is refused before it costs a database round trip).
 */
type Owner = { token: string; storeId: string };
/** The client address, as a proxy in front (TRUST_PROXY) tells it. */
const FORWARDED = 'x-forwarded-for';

describe('store keys: limits', () => {
  let api: TestApp;
  let a: Owner;
  let b: Owner;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const ownerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;
  const create = (owner: Owner) =>
    api.request('POST', `/functions/v1/stores/${owner.storeId}/api-keys`, {
      token: owner.token,
      body: { name: 'server', permissions: ['catalog'] },
    });
  /** Keys inserted as the system, as if made earlier: `state` live, revoked or expired. */
  const insertKeys = (owner: Owner, count: number, state: 'live' | 'revoked' | 'expired') =>
    db().query(
      `INSERT INTO store_api_keys (store_id, name, prefix, secret_hash, permissions, created_by, revoked_at, expires_at)
       SELECT $1, 'earlier', 'sk_earlier', decode(md5(random()::text || i) || md5(random()::text || i), 'hex'),
              ARRAY['catalog'], $2,
              CASE WHEN $3 = 'revoked' THEN now() END, CASE WHEN $3 = 'expired' THEN now() - interval '1 minute' END
         FROM generate_series(1, $4) AS i`,
      [owner.storeId, ownerOf(owner.token), state, count],
    );

  beforeAll(async () => {
    api = await startApp();
    a = await merchantWithStore(api, 'Key limits A');
    b = await merchantWithStore(api, 'Key limits B');
  });
  afterAll(() => api?.close());

  it('a store holds at most 50 live keys: revoked or expired ones do not count, the 51st is a 409', async () => {
    await insertKeys(a, 48, 'live');
    await insertKeys(a, 3, 'revoked');
    await insertKeys(a, 3, 'expired');
    const fortyNinth = await create(a);
    expect(fortyNinth.status, JSON.stringify(fortyNinth.body)).toBe(201);
    // Two creations at once for the last place: exactly one is made (the store's row is locked while counting).
    const racing = await Promise.all([create(a), create(a)]);
    expect(racing.map((made) => made.status).sort()).toEqual([201, 409]);
    const refused = racing.find((made) => made.status === 409)!;
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT' });
    expect(refused.body.error.message).toMatch(/at most 50 live keys/);
    expect(JSON.stringify(refused.body)).not.toMatch(/sk_/);
    expect((await create(a)).status).toBe(409);
    const [live] = await db().query(
      `SELECT count(*)::int AS n FROM store_api_keys
        WHERE store_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [a.storeId],
    );
    expect(live.n).toBe(50);

    expect((await create(b)).status).toBe(201);
    // Revoking one makes room for one more.
    const made = racing.find((one) => one.status === 201)!;
    const revoked = await api.request('DELETE', `/functions/v1/api-keys/${made.body.api_key.id}`, { token: a.token });
    expect(revoked.status).toBe(200);
    expect((await create(a)).status).toBe(201);
    expect((await create(a)).status).toBe(409);
  });

  it('unknown keys from one address: 401, then 429 without a lookup; a valid key from elsewhere works', async () => {
    const limited = await startApp({ STORE_KEY_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'loopback' });
    const lookups: string[] = [];
    const original = pg.Client.prototype.query;
    // Records the key lookups the request login sends (every call goes through).
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    spy.mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text: string } | undefined;
      const text = typeof first === 'string' ? first : (first?.text ?? '');
      if (text.includes('app_authorize_api_key')) lookups.push(text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original);
    try {
      const made = await create(b);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
      const [guesser, server] = [address(), address()];
      const products = `/functions/v1/stores/${b.storeId}/products`;
      const guess = () =>
        limited.request('GET', products, {
          token: `sk_${randomBytes(32).toString('base64url')}`,
          headers: { [FORWARDED]: guesser },
        });
      for (let i = 0; i < 3; i++) expect((await guess()).status).toBe(401);
      expect(lookups).toHaveLength(3);
      const refused = await guess();
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 3, window_seconds: 60 } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      for (let i = 0; i < 5; i++) expect((await guess()).status).toBe(429);
      // Even the right key from that address waits: the address is refused before any lookup.
      const secret = made.body.secret as string;
      const withKey = (from: string) => {
        const headers = { [FORWARDED]: from };
        return limited.request('GET', products, { token: secret, headers });
      };
      const fromGuesser = await withKey(guesser);
      expect(fromGuesser.status).toBe(429);
      expect(lookups).toHaveLength(3);
      // Another address is not held back, and a valid key costs no Redis read there.
      const fromServer = await withKey(server);
      expect(fromServer.status, JSON.stringify(fromServer.body)).toBe(200);
      expect(lookups).toHaveLength(4);
    } finally {
      spy.mockRestore();
      await limited.close();
    }
  });
});
