import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { merchantWithStore, PUBLIC_KEY, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/**
 * Store keys over HTTP, on the real app with two stores: who may make, list and revoke them, what a
 * key may do (a team member of its one store with its permissions, never the owner), and what the
 * database keeps (a hash, never the secret; the key's use to the minute; who acted on each event).
 */
describe('store keys', () => {
  let api: TestApp;
  let ownerA: { token: string; storeId: string };
  let ownerB: { token: string; storeId: string };
  let memberToken: string;
  let productB: string;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);

  const asKey = (secret: string, method: string, path: string, body?: unknown) =>
    api.request(method, `/functions/v1${path}`, { token: secret, body });
  const makeKey = async (permissions: string[], extra: Record<string, unknown> = {}, owner = ownerA) => {
    const made = await api.request('POST', `/functions/v1/stores/${owner.storeId}/api-keys`, {
      token: owner.token,
      body: { name: 'Server', permissions, ...extra },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body as { api_key: { id: string; prefix: string }; secret: string };
  };

  beforeAll(async () => {
    api = await startApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_HTTP: 'true' });
    ownerA = await merchantWithStore(api, 'Key store A');
    ownerB = await merchantWithStore(api, 'Key store B');
    const email = uniqueEmail('member');
    const invite = await api.request('POST', `/functions/v1/stores/${ownerA.storeId}/members`, {
      token: ownerA.token,
      body: { email, permissions: ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing'] },
    });
    memberToken = (await signUp(api, { invite_token: invite.body.invite_token }, email)).access_token;
    productB = (
      await api.request('POST', `/functions/v1/stores/${ownerB.storeId}/products`, {
        token: ownerB.token,
        body: { name: 'B mug', price: 5, status: 'active' },
      })
    ).body.product.id;
  });
  afterAll(() => api?.close());

  describe('managing keys', () => {
    it(
      'the owner creates a key: the secret is shown once, the ' +
        'list never shows it, the table keeps only its SHA-256',
      async () => {
        const { api_key, secret } = await makeKey(['catalog', 'orders'], {
          expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        });
        expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
        expect(api_key).toMatchObject({
          store_id: ownerA.storeId,
          name: 'Server',
          permissions: ['catalog', 'orders'],
          prefix: secret.slice(0, 11),
        });
        expect(api_key).toMatchObject({ last_used_at: null, revoked_at: null });
        expect(Object.keys(api_key).sort()).toEqual(
          [
            'created_at',
            'expires_at',
            'id',
            'last_used_at',
            'name',
            'permissions',
            'prefix',
            'revoked_at',
            'store_id',
          ].sort(),
        );

        const list = await api.request('GET', `/functions/v1/stores/${ownerA.storeId}/api-keys?limit=100`, {
          token: ownerA.token,
        });
        expect(list.status).toBe(200);
        expect(list.body.data.map((k: { id: string }) => k.id)).toContain(api_key.id);
        expect(JSON.stringify(list.body)).not.toContain(secret.slice(11));

        const [row] = await db().query('SELECT * FROM store_api_keys WHERE id = $1', [api_key.id]);
        expect(Buffer.from(row.secret_hash).equals(createHash('sha256').update(secret).digest())).toBe(true);
        expect(JSON.stringify(row)).not.toContain(secret.slice(11));
        const hits = await db().query(
          `SELECT count(*)::int AS n FROM store_api_keys WHERE position($1 IN row_to_json(store_api_keys)::text) > 0`,
          [secret.slice(11)],
        );
        expect(hits[0].n).toBe(0);
      },
    );

    it('paginates the list', async () => {
      for (let i = 0; i < 3; i++) await makeKey(['catalog'], {}, ownerB);
      const first = await api.request('GET', `/functions/v1/stores/${ownerB.storeId}/api-keys?limit=2`, {
        token: ownerB.token,
      });
      expect(first.body.data).toHaveLength(2);
      const second = await api.request(
        'GET',
        `/functions/v1/stores/${ownerB.storeId}/api-keys?limit=2&cursor=${first.body.next_cursor}`,
        {
          token: ownerB.token,
        },
      );
      expect(second.body.data.length).toBeGreaterThanOrEqual(1);
      expect(second.body.data[0].id).not.toBe(first.body.data[1].id);
    });

    it.each([
      [{ name: 'x', permissions: [] }, 'permissions'],
      [{ name: 'x', permissions: ['catalog', 'root'] }, 'permissions'],
      [{ name: 'x' }, 'permissions'],
      [{ name: '', permissions: ['catalog'] }, 'name'],
      [{ name: 'x', permissions: ['catalog'], expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'x', permissions: ['catalog'], expires_at: 'tomorrow' }, 'expires_at'],
    ])('refuses %j with 400 naming %s', async (body, field) => {
      const result = await api.request('POST', `/functions/v1/stores/${ownerA.storeId}/api-keys`, {
        token: ownerA.token,
        body,
      });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe('VALIDATION_FAILED');
      expect(result.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('a team member (every permission) may not create, list or revoke keys; another owner gets 404', async () => {
      const { api_key } = await makeKey(['catalog']);
      const path = `/functions/v1/stores/${ownerA.storeId}/api-keys`;
      const body = { name: 'x', permissions: ['catalog'] };
      expect((await api.request('POST', path, { token: memberToken, body })).status).toBe(403);
      expect((await api.request('GET', path, { token: memberToken })).status).toBe(403);
      expect((await api.request('DELETE', `/functions/v1/api-keys/${api_key.id}`, { token: memberToken })).status).toBe(
        403,
      );
      expect((await api.request('POST', path, { token: ownerB.token, body })).status).toBe(404);
      expect((await api.request('GET', path, { token: ownerB.token })).status).toBe(404);
      const foreign = await api.request('DELETE', `/functions/v1/api-keys/${api_key.id}`, { token: ownerB.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('NOT_FOUND');
      const [row] = await db().query('SELECT revoked_at FROM store_api_keys WHERE id = $1', [api_key.id]);
      expect(row.revoked_at).toBeNull();
    });
  });

  describe('a key with catalog', () => {
    let key: { api_key: { id: string }; secret: string };
    beforeAll(async () => {
      key = await makeKey(['catalog']);
    });

    it('creates and reads products of its store, with no apikey header', async () => {
      const made = await asKey(key.secret, 'POST', `/stores/${ownerA.storeId}/products`, {
        name: 'Key mug',
        price: 9.5,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const read = await asKey(key.secret, 'GET', `/products/${made.body.product.id}`);
      expect(read.status).toBe(200);
      expect(read.body.product.name).toBe('Key mug');
      const list = await asKey(key.secret, 'GET', `/stores/${ownerA.storeId}/products`);
      expect(list.body.data.map((p: { id: string }) => p.id)).toContain(made.body.product.id);
    });

    it('records the key as the actor of the stored event (a user’s request, the user)', async () => {
      const made = await asKey(key.secret, 'POST', `/stores/${ownerA.storeId}/products`, {
        name: 'Attributed',
        price: 1,
      });
      const [event] = await db().query(
        `SELECT actor FROM outbox_events WHERE store_id = $1 AND ` +
          `event = 'product.created' AND data->>'product_id' = $2`,
        [ownerA.storeId, made.body.product.id],
      );
      expect(event.actor).toEqual({ type: 'api_key', id: key.api_key.id });
      const byOwner = await api.request('POST', `/functions/v1/stores/${ownerA.storeId}/products`, {
        token: ownerA.token,
        body: { name: 'By the owner', price: 1 },
      });
      const [ownerEvent] = await db().query(
        `SELECT actor FROM outbox_events WHERE event = 'product.created' AND data->>'product_id' = $1`,
        [byOwner.body.product.id],
      );
      expect(ownerEvent.actor).toMatchObject({ type: 'user' });
    });

    it('gets 403 on orders, customers and webhooks, 404 for another store and its records', async () => {
      expect((await asKey(key.secret, 'GET', `/stores/${ownerA.storeId}/orders`)).status).toBe(403);
      expect((await asKey(key.secret, 'GET', `/stores/${ownerA.storeId}/customers`)).status).toBe(403);
      expect((await asKey(key.secret, 'GET', `/webhooks?store_id=${ownerA.storeId}`)).status).toBe(403);
      expect((await asKey(key.secret, 'GET', `/products/${productB}`)).status).toBe(404);
      expect((await asKey(key.secret, 'GET', `/stores/${ownerB.storeId}/products`)).status).toBe(404);
      const forged = await asKey(key.secret, 'POST', `/stores/${ownerB.storeId}/products`, {
        name: 'Forged',
        price: 1,
      });
      expect(forged.status).toBe(404);
      expect((await db().query(`SELECT 1 FROM products WHERE name = 'Forged'`)).length).toBe(0);
    });

    it.each([
      ['POST', '/stores', { name: 'By a key' }],
      ['GET', '/stores', undefined],
      ['PATCH', '/stores/:a', { name: 'Renamed' }],
      ['POST', '/stores/:a/members', { email: 'x@example.com', permissions: ['catalog'] }],
      ['GET', '/stores/:a/members', undefined],
      ['POST', '/stores/:a/api-keys', { name: 'Another', permissions: ['catalog'] }],
      ['GET', '/stores/:a/api-keys', undefined],
      ['DELETE', '/api-keys/:k', undefined],
      ['GET', '/orders', undefined],
      ['POST', '/credits/grant', { store_id: ':a', amount: 10, reason: 'free' }],
      ['GET', '/dev-mailbox', undefined],
    ])('%s %s → 403', async (method, template, body) => {
      const fill = (text: string) => text.replaceAll(':a', ownerA.storeId).replaceAll(':k', key.api_key.id);
      const filled = body ? JSON.parse(fill(JSON.stringify(body))) : undefined;
      const result = await asKey(key.secret, method, fill(template), filled);
      expect(result.status, JSON.stringify(result.body)).toBe(403);
      expect(result.body.error.code).toBe('FORBIDDEN');
    });

    it('cannot call /auth/v1 (401), even with the public key beside it', async () => {
      const user = await api.request('GET', '/auth/v1/user', { token: key.secret });
      expect(user.status).toBe(401);
      const withKey = await api.request('GET', '/auth/v1/user', { token: key.secret, headers: { apikey: PUBLIC_KEY } });
      expect(withKey.status).toBe(401);
      const logout = await api.request('POST', '/auth/v1/logout', {
        token: key.secret,
        headers: { apikey: PUBLIC_KEY },
      });
      expect(logout.status).toBe(401);
    });
  });

  it('a key with orders places and reads orders of its store, but not products it may not manage', async () => {
    const { secret } = await makeKey(['orders']);
    const product = await api.request('POST', `/functions/v1/stores/${ownerA.storeId}/products`, {
      token: ownerA.token,
      body: { name: 'Orderable', price: 3, inventory_quantity: 5, status: 'active' },
    });
    const order = await asKey(secret, 'POST', `/stores/${ownerA.storeId}/orders`, {
      items: [{ product_id: product.body.product.id, quantity: 2 }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.order.total).toBe(6);
    const [row] = await db().query('SELECT placed_by FROM orders WHERE id = $1', [order.body.order.id]);
    expect(row.placed_by).toBeNull();
    expect((await asKey(secret, 'GET', `/orders/${order.body.order.id}`)).status).toBe(200);
    expect((await asKey(secret, 'POST', `/stores/${ownerA.storeId}/products`, { name: 'No', price: 1 })).status).toBe(
      403,
    );
  });

  it('a key with every permission works on each route family of its store a member works on', async () => {
    const all = ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing'];
    const { secret } = await makeKey(all);
    const customer = await asKey(secret, 'POST', `/stores/${ownerA.storeId}/customers`, {
      name: 'Kay',
      email: uniqueEmail('kay'),
    });
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    expect((await asKey(secret, 'GET', `/customers/${customer.body.customer.id}`)).status).toBe(200);
    const hook = await asKey(secret, 'POST', '/webhooks/register', {
      store_id: ownerA.storeId,
      url: 'http://127.0.0.1:9/store-key',
      events: ['order.created'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    for (const path of [
      `/stores/${ownerA.storeId}`,
      `/credits?store_id=${ownerA.storeId}`,
      `/notifications?store_id=${ownerA.storeId}`,
      `/social-posts?store_id=${ownerA.storeId}`,
      `/webhooks/${hook.body.webhook.id}/deliveries`,
    ]) {
      const result = await asKey(secret, 'GET', path);
      expect(result.status, `${path} ${JSON.stringify(result.body)}`).toBe(200);
    }
    // The AI functions, charged to its store; publishing answers the validation (no account is connected).
    const generated = await asKey(secret, 'POST', '/generate-blog-autopilot', {
      topic: 'Mugs',
      tone: 'friendly',
      length: 'short',
      language: 'en',
      store_id: ownerA.storeId,
    });
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    expect(generated.body.ai_credits_used).toBe(5);
    const published = await asKey(secret, 'POST', '/social-publish', {
      store_id: ownerA.storeId,
      platforms: ['x'],
      content: { text: 'Hi' },
    });
    expect(published.status).toBe(400);
    const problem = { field: 'platforms', platform: 'x', message: 'X is not connected to this store' };
    expect(published.body.error.details).toEqual([problem]);
    // What keys never do, whatever their permissions: connecting an account (a person's consent in a browser).
    const connect = await asKey(secret, 'POST', '/social-connect', { store_id: ownerA.storeId, platform: 'x' });
    expect(connect.status).toBe(403);
  });

  it('a revoked key is refused on its very next request; revoking again answers the same', async () => {
    const { api_key, secret } = await makeKey(['catalog']);
    expect((await asKey(secret, 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(200);
    const revoked = await api.request('DELETE', `/functions/v1/api-keys/${api_key.id}`, { token: ownerA.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: 'API key revoked' });
    const after = await asKey(secret, 'GET', `/stores/${ownerA.storeId}/products`);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHENTICATED');
    expect((await asKey(secret, 'GET', `/products/${productB}`)).status).toBe(401);
    expect((await api.request('DELETE', `/functions/v1/api-keys/${api_key.id}`, { token: ownerA.token })).status).toBe(
      200,
    );
    const listed = await api.request('GET', `/functions/v1/stores/${ownerA.storeId}/api-keys?limit=100`, {
      token: ownerA.token,
    });
    expect(listed.body.data.find((k: { id: string }) => k.id === api_key.id).revoked_at).not.toBeNull();
  });

  it('an expired key is refused', async () => {
    const { api_key, secret } = await makeKey(['catalog'], { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await asKey(secret, 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(200);
    await db().query(`UPDATE store_api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [api_key.id]);
    expect((await asKey(secret, 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(401);
  });

  it('an unknown or malformed secret is 401', async () => {
    expect((await asKey(`sk_${'A'.repeat(43)}`, 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(401);
    expect((await asKey('sk_short', 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(401);
  });

  it('records last_used_at, and does not write it again within the minute', async () => {
    const { api_key, secret } = await makeKey(['catalog']);
    expect((await asKey(secret, 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(200);
    const first = await until(async () => {
      const [row] = await db().query('SELECT last_used_at FROM store_api_keys WHERE id = $1', [api_key.id]);
      return row.last_used_at as Date | null;
    }, 'last_used_at to be recorded');
    // Another process's request (no memo of its own) is held back by the database's condition too.
    const hash = createHash('sha256').update(secret).digest('hex');
    const [again] = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT app_touch_api_key($1) AS written', [hash]);
    expect(again.written).toBe(false);
    for (let i = 0; i < 3; i++)
      expect((await asKey(secret, 'GET', `/stores/${ownerA.storeId}/products`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [row] = await db().query('SELECT last_used_at FROM store_api_keys WHERE id = $1', [api_key.id]);
    expect(row.last_used_at.getTime()).toBe(first.getTime());
    // A minute later (moved back here), the next use writes it again.
    await db().query(`UPDATE store_api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [
      api_key.id,
    ]);
    const [later] = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT app_touch_api_key($1) AS written', [hash]);
    expect(later.written).toBe(true);
  });
});
