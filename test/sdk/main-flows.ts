/**
 * The main flows of the API driven only through the generated client (sdk/): sign-up and sign-in,
 * a store, a product, two AI functions, a social account connected and a post published, a webhook
 * registered and an order's event delivered to it, signed. test/sdk.e2e-spec.ts boots the app and
 * the fakes and runs these steps against them.
 *
 * This file is compiled by `tsc -p tsconfig.sdk.json` (in `npm run lint`) with every strict option,
 * and ESLint forbids type assertions, `any` and non-null assertions here: every field read below is
 * typed by the OpenAPI document, so a route whose answer lost its schema fails to compile.
 */
import { Webhook } from 'standardwebhooks';
import { beforeAll, expect, it } from 'vitest';
import { createStorefrontClient, type Schemas, type StorefrontClient } from '../../sdk/index.js';
import { until } from '../support/wait.js';

/**
 * What the e2e spec provides: the app's address, and the fakes standing in for the browser and the outside services.
 */
export interface FlowWorld {
  baseUrl: string;
  /** PUBLIC_API_KEY of the app. */
  publicKey: string;
  /** A product photo served over HTTP, for generate-product. */
  photoUrl: string;
  /** What the fake AI provider answers: the product's name and the article's title. */
  ai: { productName: string; articleTitle: string };
  /**
   * Opens a connect's `auth_url` as the merchant's browser and consents: the URL the service finally sends the browser
   * to.
   */
  browse(authUrl: string): Promise<URL>;
  /** The texts the fake X API received as posts. */
  postsOnX(): string[];
  /** A webhook receiver answering 200 at any path, and what it received at one. */
  receiverUrl: string;
  received(path: string): { headers: Record<string, string>; body: string }[];
}

/**
 * The answer's body on success. `T extends object`: a route whose 2xx body the document left untyped
 * would give `unknown` here, which does not compile.
 */
function ok<T extends object>(result: { data?: T; error?: unknown; response: Response }, status: number): T {
  expect(result.response.status, JSON.stringify(result.error)).toBe(status);
  if (result.data === undefined) throw new Error(`${result.response.url}: no body`);
  return result.data;
}

/** A webhook body is an order.created event of the store (a guard, so its fields are read typed, without a cast). */
function isOrderCreated(value: unknown, storeId: string): value is Schemas['OrderCreatedEvent'] {
  if (typeof value !== 'object' || value === null) return false;
  return (
    'event' in value &&
    value.event === 'order.created' &&
    'store_id' in value &&
    value.store_id === storeId &&
    'data' in value
  );
}

export function describeMainFlows(world: () => FlowWorld): void {
  const email = `sdk-${Date.now().toString(36)}@example.com`;
  const password = 'correct horse battery staple';
  let anonymous: StorefrontClient;
  let merchant: StorefrontClient;
  let accessToken: string | undefined;
  let storeId = '';
  let productId = '';

  beforeAll(() => {
    const { baseUrl, publicKey } = world();
    anonymous = createStorefrontClient({ baseUrl, apiKey: publicKey });
    merchant = createStorefrontClient({ baseUrl, apiKey: publicKey, accessToken: () => accessToken });
  });

  it('signs up and signs in with the public key (GoTrue routes)', async () => {
    const signedUp = ok(
      await anonymous.POST('/auth/v1/signup', { body: { email, password, data: { full_name: 'Ada Merchant' } } }),
      200,
    );
    // With e-mail confirmation off, sign-up answers a session; with it on, the user alone.
    expect('access_token' in signedUp).toBe(true);

    const session = ok(
      await anonymous.POST('/auth/v1/token', {
        params: { query: { grant_type: 'password' } },
        body: { email, password },
      }),
      200,
    );
    expect(session.token_type).toBe('bearer');
    expect(session.user.email).toBe(email);
    expect(session.user.user_metadata.full_name).toBe('Ada Merchant');
    accessToken = session.access_token;

    const refused = await anonymous.POST('/auth/v1/token', {
      params: { query: { grant_type: 'password' } },
      body: { email, password: 'not the password' },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error_code).toBe('invalid_credentials');
  });

  it('creates a store and a product in it', async () => {
    const { store } = ok(
      await merchant.POST('/functions/v1/stores', { body: { name: 'SDK Supplies', currency: 'EUR' } }),
      201,
    );
    expect(store.name).toBe('SDK Supplies');
    expect(store.currency).toBe('EUR');
    storeId = store.id;

    const { product } = ok(
      await merchant.POST('/functions/v1/stores/{store_id}/products', {
        params: { path: { store_id: storeId } },
        body: { name: 'Linen apron', price: 29.5, compare_price: null, status: 'active', inventory_quantity: 12 },
      }),
      201,
    );
    expect(product).toMatchObject({
      name: 'Linen apron',
      price: 29.5,
      compare_price: null,
      inventory_quantity: 12,
      store_id: storeId,
    });
    productId = product.id;

    const listed = ok(
      await merchant.GET('/functions/v1/stores/{store_id}/products', {
        params: { path: { store_id: storeId }, query: { limit: 10 } },
      }),
      200,
    );
    expect(listed.data.map((item) => item.id)).toEqual([productId]);
    expect(listed.next_cursor).toBeNull();
  });

  it(
    'a store key, made by the merchant, lets a server client ' +
      "(no apikey) change the store's catalog and nothing else",
    async () => {
      const made = ok(
        await merchant.POST('/functions/v1/stores/{store_id}/api-keys', {
          params: { path: { store_id: storeId } },
          body: { name: 'Warehouse', permissions: ['catalog'] },
        }),
        201,
      );
      expect(made.api_key).toMatchObject({ name: 'Warehouse', permissions: ['catalog'], revoked_at: null });
      const server = createStorefrontClient({ baseUrl: world().baseUrl, accessToken: made.secret });
      const { product } = ok(
        await server.POST('/functions/v1/stores/{store_id}/products', {
          params: { path: { store_id: storeId } },
          body: { name: 'Restocked apron', price: 30 },
        }),
        201,
      );
      expect(product.store_id).toBe(storeId);
      const listed = await server.GET('/functions/v1/stores/{store_id}/api-keys', {
        params: { path: { store_id: storeId } },
      });
      expect(listed.response.status).toBe(403);
      ok(
        await merchant.DELETE('/functions/v1/api-keys/{api_key_id}', {
          params: { path: { api_key_id: made.api_key.id } },
        }),
        200,
      );
      const after = await server.GET('/functions/v1/products/{product_id}', {
        params: { path: { product_id: product.id } },
      });
      expect(after.response.status).toBe(401);
    },
  );

  it('generate-product and generate-blog-autopilot answer the provider’s drafts and charge their credits', async () => {
    const before = ok(
      await merchant.GET('/functions/v1/credits', { params: { query: { store_id: storeId } } }),
      200,
    ).balance;

    const generated = ok(
      await merchant.POST('/functions/v1/generate-product', {
        body: { image_url: world().photoUrl, store_id: storeId, language: 'en' },
        params: { header: { 'Idempotency-Key': `sdk-product-${storeId}` } },
      }),
      200,
    );
    expect(generated.product.name).toBe(world().ai.productName);
    expect(generated.product.ai_credits_used).toBe(2);

    const blog = ok(
      await merchant.POST('/functions/v1/generate-blog-autopilot', {
        body: { topic: 'Caring for linen', tone: 'friendly', length: 'short', language: 'en', store_id: storeId },
      }),
      200,
    );
    expect(blog.article.title).toBe(world().ai.articleTitle);
    expect(blog.ai_credits_used).toBe(5);

    const after = ok(await merchant.GET('/functions/v1/credits', { params: { query: { store_id: storeId } } }), 200);
    expect(after.balance).toBe(before - 7);
    expect(after.usage['generate-product'].used_last_hour).toBe(1);
  });

  it(
    'social-connect: the merchant’s browser consents and the ' +
      'account is listed; social-publish posts to the platform',
    async () => {
      const redirectUrl = 'http://localhost:5173/settings/social';
      const started = ok(
        await merchant.POST('/functions/v1/social-connect', {
          body: { platform: 'x', store_id: storeId, redirect_url: redirectUrl },
        }),
        200,
      );
      const back = await world().browse(started.auth_url);
      expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
      expect(back.searchParams.get('status')).toBe('connected');
      const accountId = back.searchParams.get('account');

      const accounts = ok(
        await merchant.GET('/functions/v1/social-accounts', { params: { query: { store_id: storeId } } }),
        200,
      );
      expect(accounts.data.map((account) => [account.id, account.platform, account.status])).toEqual([
        [accountId, 'x', 'active'],
      ]);

      const text = `Our linen apron is back in stock ${storeId.slice(0, 8)}`;
      const published = ok(
        await merchant.POST('/functions/v1/social-publish', {
          body: { store_id: storeId, platforms: ['x'], content: { text, link: null } },
        }),
        200,
      );
      expect(published.results.map((result) => [result.platform, result.status])).toEqual([['x', 'published']]);
      expect(world().postsOnX()).toContain(text);

      const posts = ok(
        await merchant.GET('/functions/v1/social-posts', { params: { query: { store_id: storeId } } }),
        200,
      );
      expect(posts.data.map((post) => [post.status, post.content.text])).toEqual([['published', text]]);
    },
  );

  it('webhook register: an order placed afterwards is delivered to the receiver, signed with the secret', async () => {
    const path = `/ok/sdk-${storeId}`;
    const registered = ok(
      await merchant.POST('/functions/v1/webhooks/register', {
        body: { store_id: storeId, url: `${world().receiverUrl}${path}`, events: ['order.created'] },
      }),
      201,
    );
    expect(registered.webhook.events).toEqual(['order.created']);
    const secret = registered.secret;
    if (secret === undefined) throw new Error('register answered no secret');

    const { order } = ok(
      await merchant.POST('/functions/v1/stores/{store_id}/orders', {
        params: { path: { store_id: storeId } },
        body: { items: [{ product_id: productId, quantity: 2 }] },
      }),
      201,
    );
    expect(order.total).toBe(59);
    expect(order.items.map((item) => [item.product_id, item.quantity])).toEqual([[productId, 2]]);

    const request = await until(() => world().received(path)[0], 'the delivery at the receiver', 30_000);
    const payload = new Webhook(secret).verify(request.body, request.headers);
    if (!isOrderCreated(payload, storeId)) throw new Error(`not an order.created of the store: ${request.body}`);
    expect([payload.data.order_id, payload.data.order_number, payload.data.total, payload.data.status]).toEqual([
      order.id,
      order.order_number,
      59,
      'pending',
    ]);

    // The delivery log says the same, typed.
    const deliveries = await until(async () => {
      const page = ok(
        await merchant.GET('/functions/v1/webhooks/{webhook_id}/deliveries', {
          params: { path: { webhook_id: registered.webhook.id } },
        }),
        200,
      );
      return page.data.find((delivery) => delivery.status === 'succeeded') ? page.data : undefined;
    }, 'the delivery recorded as succeeded');
    expect(
      deliveries.map((delivery) => [delivery.event, delivery.event_id, delivery.status, delivery.last_status_code]),
    ).toEqual([['order.created', payload.id, 'succeeded', 200]]);
  });
}
