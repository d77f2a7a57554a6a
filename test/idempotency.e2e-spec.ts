import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { merchantWithStore, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/**
 * `Idempotency-Key` on every write of /functions/v1: a retry (also 20 at once) acts once and answers the
 * first answer byte for byte; keys are per caller and per route (method and path with its ids); a failed
 * call keeps nothing. Counts are read from the database.
 */
describe('Idempotency-Key on every write', () => {
  let api: TestApp;
  let db: DataSource;
  let owner: string;
  let storeA: string;
  let storeB: string;
  let catalogMember: string;

  interface Raw {
    status: number;
    text: string;
    replayed: string | null;
    location: string | null;
    json: any;
  }
  /** A call with its body's exact text. */
  const send = async (token: string, method: string, path: string, key: string | null, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (key !== null) headers['idempotency-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${api.url}/functions/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const raw: Raw = {
      status: response.status,
      text,
      replayed: response.headers.get('idempotent-replayed'),
      location: response.headers.get('location'),
      json: text ? JSON.parse(text) : undefined,
    };
    return raw;
  };
  const mentionsKey = expect.stringContaining('Idempotency-Key');
  const count = async (sql: string, params: unknown[]) => Number((await db.query(sql, params))[0].n);
  const product = async (storeId = storeA, inventory = 100): Promise<string> => {
    const created = await send(owner, 'POST', `/stores/${storeId}/products`, null, {
      name: 'Item',
      price: 10,
      inventory_quantity: inventory,
      status: 'active',
    });
    expect(created.status, created.text).toBe(201);
    return created.json.product.id;
  };
  const stock = async (id: string): Promise<number> =>
    (await db.query('SELECT inventory_quantity FROM products WHERE id = $1', [id]))[0].inventory_quantity;
  const expectReplayOf = (first: Raw, again: Raw) => {
    expect(again.replayed).toBe('true');
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
  };

  beforeAll(async () => {
    api = await startApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_HTTP: 'true' });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    const a = await merchantWithStore(api, 'Idempotent A');
    const b = await merchantWithStore(api, 'Idempotent B');
    owner = a.token;
    storeA = a.storeId;
    // The same owner's second store: another route for the same key.
    const second = await send(owner, 'POST', '/stores', null, { name: 'Idempotent A2' });
    storeB = second.json.store.id;
    expect(b.storeId).not.toBe(storeB);
    const email = uniqueEmail('catalog');
    const invite = await send(owner, 'POST', `/stores/${storeA}/members`, null, { email, permissions: ['catalog'] });
    catalogMember = (await signUp(api, { invite_token: invite.json.invite_token }, email)).access_token;
  });

  afterAll(async () => {
    await api?.close();
  });

  it('20 parallel orders with one key place one order and take the stock once; a later retry replays it', async () => {
    const mug = await product(storeA, 50);
    const key = randomUUID();
    const body = { items: [{ product_id: mug, quantity: 2 }] };
    const order = () => send(owner, 'POST', `/stores/${storeA}/orders`, key, body);
    const answers = await Promise.all(Array.from({ length: 20 }, order));
    const firsts = answers.filter((a) => a.status === 201 && a.replayed === null);
    expect(firsts).toHaveLength(1);
    for (const other of answers.filter((a) => a !== firsts[0])) {
      if (other.status === 409) expect(other.json.error).toMatchObject({ code: 'CONFLICT', message: mentionsKey });
      else expectReplayOf(firsts[0], other);
    }
    expect(await count(`SELECT count(*) AS n FROM order_items WHERE product_id = $1`, [mug])).toBe(1);
    expect(await stock(mug)).toBe(48);
    const later = await order();
    expectReplayOf(firsts[0], later);
    expect(later.location).toBe(firsts[0].location);
    expect(await stock(mug)).toBe(48);
  });

  it(
    'the key is part of the request transaction: nothing is ' +
      'kept while the first call runs, a retry meanwhile is 409',
    async () => {
      const id = await product(storeA, 10);
      const key = randomUUID();
      const body = { items: [{ product_id: id, quantity: 1 }] };
      // Hold the product's row: the order waits in its transaction, after its claim, before its commit.
      const holder = db.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      let first: Promise<Raw>;
      try {
        await holder.query('SELECT 1 FROM products WHERE id = $1 FOR UPDATE', [id]);
        first = send(owner, 'POST', `/stores/${storeA}/orders`, key, body);
        const [{ pid }] = await holder.query('SELECT pg_backend_pid() AS pid');
        const blocked = `SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))`;
        await until(async () => (await count(blocked, [pid])) > 0, 'the order to wait for the product row');
        // A claim committed on its own would show here; the claim of the request transaction does not.
        expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])).toBe(0);
        const meanwhile = await send(owner, 'POST', `/stores/${storeA}/orders`, key, body);
        expect(meanwhile.status).toBe(409);
        expect(meanwhile.json.error).toMatchObject({ code: 'CONFLICT', message: mentionsKey });
      } finally {
        await holder.rollbackTransaction();
        await holder.release();
      }
      const placed = await first!;
      expect(placed.status, placed.text).toBe(201);
      expectReplayOf(placed, await send(owner, 'POST', `/stores/${storeA}/orders`, key, body));
      expect(await stock(id)).toBe(9);
    },
  );

  it('a retried stock adjustment moves the stock once', async () => {
    const id = await product(storeA, 5);
    const key = randomUUID();
    const body = { delta: 3, reason: 'delivery' };
    const adjust = () => send(catalogMember, 'POST', `/products/${id}/inventory`, key, body);
    const first = await adjust();
    expect(first.status, first.text).toBe(200);
    expectReplayOf(first, await adjust());
    expect(await stock(id)).toBe(8);
  });

  it('a retried product creation creates one product', async () => {
    const key = randomUUID();
    const name = `Retried ${key}`;
    const body = { name, price: 3.5, inventory_quantity: 1 };
    const first = await send(owner, 'POST', `/stores/${storeA}/products`, key, body);
    expect(first.status, first.text).toBe(201);
    expectReplayOf(first, await send(owner, 'POST', `/stores/${storeA}/products`, key, body));
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [name])).toBe(1);
  });

  it('a retried invitation invites once and answers the same invite_token', async () => {
    const key = randomUUID();
    const body = { email: uniqueEmail('invited'), permissions: ['orders'] };
    const first = await send(owner, 'POST', `/stores/${storeA}/members`, key, body);
    expect(first.status, first.text).toBe(201);
    const again = await send(owner, 'POST', `/stores/${storeA}/members`, key, body);
    expectReplayOf(first, again);
    expect(again.json.invite_token).toBe(first.json.invite_token);
    const invited = `SELECT count(*) AS n FROM store_members WHERE store_id = $1 AND email = $2`;
    expect(await count(invited, [storeA, body.email])).toBe(1);
  });

  it('a retried webhook registration registers one webhook; the replay carries the same secret', async () => {
    const key = randomUUID();
    const url = `http://127.0.0.1:9/${key}`;
    const body = { store_id: storeA, url, events: ['order.paid'] };
    const first = await send(owner, 'POST', '/webhooks/register', key, body);
    expect(first.status, first.text).toBe(201);
    const again = await send(owner, 'POST', '/webhooks/register', key, body);
    expectReplayOf(first, again);
    expect(again.json.secret).toBe(first.json.secret);
    expect(await count(`SELECT count(*) AS n FROM webhooks WHERE url = $1`, [url])).toBe(1);
    // The kept answer is sealed: a reader of the table learns neither the secret nor anything of the body.
    const [kept] = await db.query(`SELECT response_body FROM idempotency_keys WHERE key = $1`, [key]);
    const stored = kept.response_body as Buffer;
    expect(stored.includes(Buffer.from(first.json.secret as string))).toBe(false);
    expect(stored.includes(Buffer.from('"success"'))).toBe(false);
  });

  it('a retried store key creation answers the same key and secret, kept sealed, and makes one key', async () => {
    const key = randomUUID();
    const body = { name: `server ${key}`, permissions: ['catalog'] };
    const first = await send(owner, 'POST', `/stores/${storeA}/api-keys`, key, body);
    expect(first.status, first.text).toBe(201);
    const again = await send(owner, 'POST', `/stores/${storeA}/api-keys`, key, body);
    expectReplayOf(first, again);
    expect(again.json.secret).toBe(first.json.secret);
    expect(await count(`SELECT count(*) AS n FROM store_api_keys WHERE name = $1`, [body.name])).toBe(1);
    const [kept] = await db.query(`SELECT response_body FROM idempotency_keys WHERE key = $1`, [key]);
    expect((kept.response_body as Buffer).includes(Buffer.from(first.json.secret as string))).toBe(false);
  });

  it('a store key has keys of its own: its retry replays, the owner with the same key acts anew', async () => {
    const created = await send(owner, 'POST', `/stores/${storeA}/api-keys`, null, {
      name: 'erp',
      permissions: ['catalog'],
    });
    expect(created.status, created.text).toBe(201);
    const secret = created.json.secret as string;
    const key = randomUUID();
    const body = { name: `Keyed by a server ${key}`, price: 5, status: 'active' };
    const first = await send(secret, 'POST', `/stores/${storeA}/products`, key, body);
    expect(first.status, first.text).toBe(201);
    expectReplayOf(first, await send(secret, 'POST', `/stores/${storeA}/products`, key, body));
    const mine = await send(owner, 'POST', `/stores/${storeA}/products`, key, body);
    expect(mine.status, mine.text).toBe(201);
    expect(mine.replayed).toBeNull();
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [body.name])).toBe(2);
    const callers = await db.query(`SELECT caller FROM idempotency_keys WHERE key = $1 ORDER BY caller`, [key]);
    expect(callers.map((row: { caller: string }) => row.caller)).toEqual([
      `api_key:${created.json.api_key.id}`,
      expect.stringMatching(/^user:/),
    ]);
  });

  it('a retried DELETE replays its 200 instead of answering 404', async () => {
    const id = await product();
    const key = randomUUID();
    const first = await send(owner, 'DELETE', `/products/${id}`, key);
    expect(first.status, first.text).toBe(200);
    expectReplayOf(first, await send(owner, 'DELETE', `/products/${id}`, key));
    // Without a kept answer the record's absence is a 404 as ever: no key, a fresh key, another caller's.
    expect((await send(owner, 'DELETE', `/products/${id}`, null)).status).toBe(404);
    expect((await send(owner, 'DELETE', `/products/${id}`, randomUUID())).status).toBe(404);
    expect((await send(catalogMember, 'DELETE', `/products/${id}`, key)).status).toBe(404);
    expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])).toBe(1);
  });

  it("another tenant's record stays a 404 with any key, and the key stays free", async () => {
    const id = await product();
    const stranger = (await merchantWithStore(api, 'Stranger')).token;
    const key = randomUUID();
    const refused = await send(stranger, 'DELETE', `/products/${id}`, key);
    expect(refused.status).toBe(404);
    expect(refused.replayed).toBeNull();
    expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM products WHERE id = $1`, [id])).toBe(1);
  });

  it('the key with another body, or on another route (another store), answers 422 and acts nothing', async () => {
    const key = randomUUID();
    const body = { name: `Keyed ${key}`, price: 1 };
    expect((await send(owner, 'POST', `/stores/${storeA}/products`, key, body)).status).toBe(201);
    const otherBody = await send(owner, 'POST', `/stores/${storeA}/products`, key, { ...body, price: 2 });
    expect(otherBody.status).toBe(422);
    expect(otherBody.json.error).toMatchObject({ code: 'UNPROCESSABLE', message: mentionsKey });
    // The same method, route pattern and body, but another store: another request, never store A's answer.
    const otherStore = await send(owner, 'POST', `/stores/${storeB}/products`, key, body);
    expect(otherStore.status).toBe(422);
    const otherMethod = await send(owner, 'PATCH', `/stores/${storeA}`, key, body);
    expect(otherMethod.status).toBe(422);
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [body.name])).toBe(1);
  });

  it('the same key, route and body from another user acts again, for that user', async () => {
    const key = randomUUID();
    const body = { name: `Shared key ${key}`, price: 1 };
    const mine = await send(owner, 'POST', `/stores/${storeA}/products`, key, body);
    const theirs = await send(catalogMember, 'POST', `/stores/${storeA}/products`, key, body);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.replayed).toBeNull();
    expect(theirs.json.product.id).not.toBe(mine.json.product.id);
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [body.name])).toBe(2);
  });

  it('the same key, route and body from another store key acts again, for that key', async () => {
    const keyFor = async (name: string) => {
      const made = await send(owner, 'POST', `/stores/${storeA}/api-keys`, null, { name, permissions: ['catalog'] });
      expect(made.status, made.text).toBe(201);
      return made.json.secret as string;
    };
    const [first, second] = [await keyFor('erp one'), await keyFor('erp two')];
    const key = randomUUID();
    const body = { name: `Two servers ${key}`, price: 1 };
    const mine = await send(first, 'POST', `/stores/${storeA}/products`, key, body);
    const theirs = await send(second, 'POST', `/stores/${storeA}/products`, key, body);
    expect(mine.status, mine.text).toBe(201);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.replayed).toBeNull();
    expect(theirs.json.product.id).not.toBe(mine.json.product.id);
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [body.name])).toBe(2);
  });

  it('on an AI function, the same key, route and body from another member is run and charged again', async () => {
    const email = uniqueEmail('ai');
    const invite = await send(owner, 'POST', `/stores/${storeA}/members`, null, { email, permissions: ['ai'] });
    const aiMember = (await signUp(api, { invite_token: invite.json.invite_token }, email)).access_token;
    const balance = async () => count('SELECT balance AS n FROM credit_accounts WHERE store_id = $1', [storeA]);
    const key = randomUUID();
    const body = { topic: `Shared key ${key}`, tone: 'friendly', length: 'short', language: 'en', store_id: storeA };
    const before = await balance();
    const mine = await send(owner, 'POST', '/generate-blog-autopilot', key, body);
    expect(mine.status, mine.text).toBe(200);
    // The owner's retry is a replay, charged once: the key is what tells them apart.
    expectReplayOf(mine, await send(owner, 'POST', '/generate-blog-autopilot', key, body));
    expect(await balance()).toBe(before - 5);
    const theirs = await send(aiMember, 'POST', '/generate-blog-autopilot', key, body);
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.replayed).toBeNull();
    expect(await balance()).toBe(before - 10);
  });

  it('a failed first call keeps nothing: the retry with the same key runs', async () => {
    const id = await product(storeA, 1);
    const key = randomUUID();
    const body = { items: [{ product_id: id, quantity: 2 }] };
    const short = await send(owner, 'POST', `/stores/${storeA}/orders`, key, body);
    expect(short.status).toBe(409);
    expect(short.json.error.code).toBe('OUT_OF_STOCK');
    expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])).toBe(0);
    expect((await send(owner, 'POST', `/products/${id}/inventory`, null, { quantity: 5 })).status).toBe(200);
    const placed = await send(owner, 'POST', `/stores/${storeA}/orders`, key, body);
    expect(placed.status, placed.text).toBe(201);
    expect(placed.replayed).toBeNull();
    expect(await stock(id)).toBe(3);
  });

  it('a key that is not 1–255 printable ASCII characters answers 400 and acts nothing', async () => {
    const body = { name: `Bad key ${randomUUID()}`, price: 1 };
    const bad = await send(owner, 'POST', `/stores/${storeA}/products`, 'x'.repeat(256), body);
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [body.name])).toBe(0);
  });

  it("a refused body: 400 with the pipe's details, the key stays free; a malformed key is named first", async () => {
    const key = randomUUID();
    const name = `Held ${key}`;
    const refused = await send(owner, 'POST', `/stores/${storeA}/products`, key, { name, price: -1 });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toEqual([expect.objectContaining({ field: 'price' })]);
    expect(await count(`SELECT count(*) AS n FROM idempotency_keys WHERE key = $1`, [key])).toBe(0);
    const badKeyAndBody = await send(owner, 'POST', `/stores/${storeA}/products`, 'x'.repeat(256), { name, price: -1 });
    expect(badKeyAndBody.status).toBe(400);
    expect(badKeyAndBody.json.error.details).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
    // The same key, now with a body the route takes: it runs, once.
    const created = await send(owner, 'POST', `/stores/${storeA}/products`, key, { name, price: 1 });
    expect(created.status, created.text).toBe(201);
    expect(created.replayed).toBeNull();
    expect(await count(`SELECT count(*) AS n FROM products WHERE name = $1`, [name])).toBe(1);
  });

  it('the OpenAPI document declares the header, 409 and 422 on every write of /functions/v1', async () => {
    const doc = (await api.request('GET', '/docs-json')).body;
    const writes: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      if (!path.startsWith('/functions/v1/')) continue;
      for (const method of ['post', 'put', 'patch', 'delete']) {
        const operation = item[method];
        if (!operation) continue;
        writes.push(`${method} ${path}`);
        const parameters: { name: string }[] = operation.parameters ?? [];
        const header = parameters.find((p) => p.name === 'Idempotency-Key');
        const declared = { in: 'header', required: false, schema: { maxLength: 255 } };
        expect(header, `${method} ${path}`).toMatchObject(declared);
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['409', '422']));
      }
    }
    // The routes the issue names, among the rest.
    expect(writes).toEqual(
      expect.arrayContaining([
        'post /functions/v1/stores/{store_id}/orders',
        'post /functions/v1/products/{product_id}/inventory',
        'delete /functions/v1/products/{product_id}',
        'post /functions/v1/stores/{store_id}/members',
        'post /functions/v1/webhooks/register',
        'post /functions/v1/social-publish',
      ]),
    );
    expect(writes.length).toBeGreaterThanOrEqual(31);
  });
});
