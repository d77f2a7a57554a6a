import { createHash, randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SecretBox } from '@app/core';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE } from './support/database.js';

const userIdOf = (token: string): string => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub;

/**
 * Kept idempotent answers at the database level: only a body this API sealed for that very row (caller,
 * key, route, fingerprint), under the key derived for answers, is ever replayed; nothing else is answered
 * (422, and the route does not run). A row's caller is the bound user or store key, never another's.
 */
describe('kept idempotent answers, sealed and owned', () => {
  let api: TestApp;
  let a: { token: string; storeId: string };
  let b: { token: string; storeId: string };
  const system = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const countProducts = async (name: string) =>
    (await system().query(`SELECT count(*)::int AS n FROM products WHERE name = $1`, [name]))[0].n as number;
  const createProduct = (token: string, storeId: string, name: string, key: string) =>
    api.request('POST', `/functions/v1/stores/${storeId}/products`, {
      token,
      body: { name, price: 1 },
      headers: { 'idempotency-key': key },
    });

  beforeAll(async () => {
    api = await startApp();
    a = await merchantWithStore(api, 'Sealing store A');
    b = await merchantWithStore(api, 'Sealing store B');
  });
  afterAll(() => api?.close());

  it('replays an answer it kept, byte for byte', async () => {
    const key = randomUUID();
    const first = await createProduct(a.token, a.storeId, `kept ${key}`, key);
    const again = await createProduct(a.token, a.storeId, `kept ${key}`, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countProducts(`kept ${key}`)).toBe(1);
  });

  it("never replays a kept answer copied into another of the caller's rows: 422, the route not run", async () => {
    const source = randomUUID();
    const made = await createProduct(a.token, a.storeId, `source ${source}`, source);
    expect(made.status).toBe(201);
    const target = randomUUID();
    const name = `target ${target}`;
    const route = `POST /functions/v1/stores/${a.storeId}/products`;
    const fingerprint = createHash('sha256')
      .update(`{"name":${JSON.stringify(name)},"price":1}`)
      .digest('hex');
    // SQL injected into the caller's own request: the row is its own, the blob another row's.
    await asRequest(api, a.token, (q) =>
      q(
        `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint, state,
                                       response_status, response_headers, response_body)
         SELECT caller, user_id, $2, $3, $4, 'done', response_status, response_headers, response_body
           FROM idempotency_keys WHERE key = $1`,
        [source, target, route, fingerprint],
      ),
    );
    const answer = await createProduct(a.token, a.storeId, name, target);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toEqual({ code: 'UNPROCESSABLE', message: expect.stringMatching(/cannot be replayed/) });
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    expect(await countProducts(name)).toBe(0);
  });

  it('never answers a social token sealed under ENCRYPTION_KEY, planted as a kept answer by a store key', async () => {
    const made = await api.request('POST', `/functions/v1/stores/${a.storeId}/api-keys`, {
      token: a.token,
      body: { name: 'social server', permissions: ['social'] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const keyId = made.body.api_key.id as string;
    const secret = made.body.secret as string;
    const token = `oauth-access-token-${randomUUID()}`;
    await system().query(
      `INSERT INTO social_accounts (store_id, platform, platform_account_id, username, access_token_sealed)
       VALUES ($1, 'x', $2, 'shop', $3)`,
      [a.storeId, `acct-${randomUUID()}`, api.app.get(SecretBox).seal(token)],
    );
    // A DELETE of a record that does not exist: the guard's 404 is held back for a replay.
    const gone = randomUUID();
    const route = `DELETE /functions/v1/products/${gone}`;
    const fingerprint = createHash('sha256').update('null').digest('hex');
    const hash = createHash('sha256').update(secret).digest('hex');
    // SQL injected into the key's own request, bound as the key's requests are.
    await api.app.get<DataSource>(getDataSourceToken()).transaction(async (m) => {
      await m.query('SELECT key_id FROM app_authorize_api_key($1, NULL, NULL, NULL, false, true)', [hash]);
      const b64 = (part: string) =>
        `decode(rpad(translate(split_part(s.access_token_sealed, '.', ${part}), '-_', '+/'),
                     ((length(split_part(s.access_token_sealed, '.', ${part})) + 3) / 4) * 4, '='), 'base64')`;
      await m.query(
        `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint, state,
                                       response_status, response_headers, response_body)
         SELECT $1, app_api_key_id(), 'exfil', $2, $3, 'done', 201, '{"content-type":"text/plain"}',
                '\\x01'::bytea || ${b64('2')} || ${b64('3')} || ${b64('4')}
           FROM social_accounts s WHERE s.store_id = $4 LIMIT 1`,
        [`api_key:${keyId}`, route, fingerprint, a.storeId],
      );
    });
    const replay = await api.request('DELETE', `/functions/v1/products/${gone}`, {
      token: secret,
      headers: { 'idempotency-key': 'exfil' },
    });
    expect([404, 422]).toContain(replay.status);
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(replay.body)).not.toContain(token);
  });

  it("refuses a row written under another caller's name; the victim's keyed write still works", async () => {
    const victim = userIdOf(a.token);
    const key = `order-${randomUUID()}`;
    await expect(
      asRequest(api, b.token, (q) =>
        q(
          `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint, state)
           VALUES ($1, app_user_id(), $2, 'x', 'y', 'pending')`,
          [`user:${victim}`, key],
        ),
      ),
    ).rejects.toThrow(/row-level security/);
    const written = await createProduct(a.token, a.storeId, `victim ${key}`, key);
    expect(written.status).toBe(201);
    expect(await countProducts(`victim ${key}`)).toBe(1);
  });

  it("may not rewrite a row's caller, user or key", async () => {
    const key = randomUUID();
    expect((await createProduct(b.token, b.storeId, `own ${key}`, key)).status).toBe(201);
    const rename = `UPDATE idempotency_keys SET key = 'renamed' WHERE key = $1`;
    await expect(asRequest(api, b.token, (q) => q(rename, [key]))).rejects.toThrow(/permission denied/);
  });

  it("answers 409, not 500, when a row of the caller's name that it may not see holds the key", async () => {
    const victim = userIdOf(a.token);
    const other = userIdOf(b.token);
    for (const age of ['0 seconds', '2 days']) {
      const key = `held-${randomUUID()}`;
      // Written before the policy bound the caller (or by the system): a row of A's name that B owns.
      await system().query(
        `INSERT INTO idempotency_keys (caller, user_id, key, route, fingerprint, state, created_at)
         VALUES ($1, $2, $3, 'x', 'y', 'pending', now() - $4::interval)`,
        [`user:${victim}`, other, key, age],
      );
      const blocked = await createProduct(a.token, a.storeId, `blocked ${key}`, key);
      expect(blocked.status, JSON.stringify(blocked.body)).toBe(409);
      expect(blocked.body.error.code).toBe('CONFLICT');
      expect(await countProducts(`blocked ${key}`)).toBe(0);
    }
  });
});
