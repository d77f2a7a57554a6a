import { createHash } from 'node:crypto';
import pg from 'pg';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { asRequest } from './support/database.js';

/**
 * A store key's hash is all `app_authorize_api_key` needs, and every request connection logs in as
 * the same role, so it can read the text of the others' statements in `pg_stat_activity`. The hash
 * therefore travels only as a bind parameter (never in a statement's text), on every path a key's
 * request takes: the lookup, the transaction's lookup, the binding and the touch of its last use.
 */
describe('store keys never put their hash into statement text', () => {
  let api: TestApp;
  let a: { token: string; storeId: string };
  let b: { token: string; storeId: string };
  const sent: string[] = [];
  let spy: ReturnType<typeof vi.spyOn>;

  const makeKey = async (permissions: string[]) => {
    const made = await api.request('POST', `/functions/v1/stores/${a.storeId}/api-keys`, {
      token: a.token,
      body: { name: 'server', permissions },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const secret = made.body.secret as string;
    return { id: made.body.api_key.id as string, secret, hash: createHash('sha256').update(secret).digest('hex') };
  };

  beforeAll(async () => {
    // The poll below calls as fast as the API answers for three seconds: past the default limit per key (1,200 a
    // minute) on a fast machine. This file is about statement text, not limits.
    api = await startApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
    a = await merchantWithStore(api, 'Key statements A');
    b = await merchantWithStore(api, 'Key statements B');
    const original = pg.Client.prototype.query;
    // Records the text of what the request login sends (every call goes through).
    spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const { connectionParameters } = this as unknown as { connectionParameters: { application_name?: string } };
      const name = connectionParameters.application_name;
      if (name?.endsWith('-request')) {
        const first = args[0] as string | { text: string };
        sent.push(typeof first === 'string' ? first : first.text);
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original);
  });
  afterAll(async () => {
    spy?.mockRestore();
    await api?.close();
  });

  it('no statement a key request sends holds a 64-hex hash: reads, writes, the touch', async () => {
    const key = await makeKey(['catalog', 'orders']);
    sent.length = 0;
    const created = await api.request('POST', `/functions/v1/stores/${a.storeId}/products`, {
      token: key.secret,
      body: { name: 'Kettle', price: 20, status: 'active' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await api.request('GET', `/functions/v1/stores/${a.storeId}/products`, { token: key.secret });
    expect(page.status).toBe(200);
    const productPath = `/functions/v1/products/${created.body.product.id}`;
    const product = await api.request('GET', productPath, { token: key.secret });
    expect(product.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the touch is not awaited by the request
    const texts = sent.join('\n');
    expect(texts).toContain('app_authorize_api_key($1');
    expect(texts).toContain('app_touch_api_key($1)');
    expect(texts).not.toContain(key.hash);
    expect(sent.filter((text) => /[0-9a-f]{64}/i.test(text))).toEqual([]);
  });

  it("an injection in store B's request polling pg_stat_activity while A's key is used finds no hash", async () => {
    const key = await makeKey(['catalog']);
    let polling = true;
    // SQL injected into a request of merchant B: polls the other connections' statement text for a
    // key's lookup, and ends (with an error carrying what it found) on a hash or after three seconds.
    const injected = asRequest(api, b.token, (q) =>
      q(`DO $$
        DECLARE q text; seen int := 0; stop timestamptz := clock_timestamp() + interval '3 seconds';
        BEGIN
          WHILE clock_timestamp() < stop LOOP
            PERFORM pg_stat_clear_snapshot();
            FOR q IN SELECT s.query FROM pg_stat_activity s
                      WHERE s.pid <> pg_backend_pid() AND s.query LIKE '%app_authorize_api_key(%' LOOP
              IF q ~ '[0-9a-f]{64}' THEN RAISE EXCEPTION 'found: %', q; END IF;
              seen := seen + 1;
            END LOOP;
            PERFORM pg_sleep(0.0005);
          END LOOP;
          RAISE EXCEPTION 'seen: %', seen;
        END $$`),
    ).then(
      () => 'no end',
      (error: Error) => error.message,
    );
    void injected.finally(() => (polling = false));
    // Meanwhile A's server makes ordinary calls with its key, on a route that runs in a transaction.
    let calls = 0;
    while (polling) {
      const page = await api.request('GET', `/functions/v1/stores/${a.storeId}/products`, { token: key.secret });
      expect(page.status).toBe(200);
      calls++;
    }
    const outcome = await injected;
    expect(outcome).not.toContain(key.hash);
    expect(outcome).not.toMatch(/^found/);
    expect(calls).toBeGreaterThan(5);
    // The poll did see the key's lookups, only never a hash in them.
    expect(outcome).toMatch(/^seen: [1-9]/);
  });
});
