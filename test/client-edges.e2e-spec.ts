import { request as httpRequest } from 'node:http';
import type { DataSource } from 'typeorm';
import { merchantWithStore, PUBLIC_KEY, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';
import { connectSandbox } from './support/social.js';

const LIMIT = 8;
const ORIGIN = 'http://localhost:5173';
const STORES = '/functions/v1/stores';
const MULTIPART = '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nMultipart\r\n--x--\r\n';
const REFUSED = {
  success: false,
  error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' },
};

/**
 * What clients send and read: JSON bodies only on /functions/v1 (415 otherwise, nothing changed),
 * the RateLimit-* headers on every counted answer, and text checks that never hold the event loop.
 */
describe('client edges: media types, rate-limit headers, linear text checks', () => {
  /** The app with the suite's limits, where users sign up and stores are made. */
  let api: TestApp;
  /** The same API with a rate limit of LIMIT requests a minute (sign-ups, counted per address, would hit it). */
  let limited: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    const env = {
      CORS_ORIGINS: ORIGIN,
      SOCIAL_MODE: 'sandbox',
      // Its own Bull queues: a worker of another file's app must not take this file's posts.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}client-edges:`,
    };
    api = await startApp(env);
    limited = await startApp({ ...env, RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  });
  afterAll(async () => {
    await limited?.close();
    await api?.close();
  });

  const storesOf = async (userId: string): Promise<number> =>
    (await db.query('SELECT count(*)::int AS n FROM stores WHERE owner_id = $1', [userId]))[0].n;

  /**
   * The longest the event loop of this process (the app's and the test's) was busy between two
   * turns, measured in CPU time between the ticks of a 5 ms timer: the wall-clock delay of a timer
   * (perf_hooks' monitorEventLoopDelay) also counts the time the machine gives other processes, which
   * on a loaded machine is far over 50 ms with no request holding the loop. Other threads of the
   * process (garbage collection) count too, so this errs long.
   */
  const loopBusy = () => {
    let last = process.cpuUsage();
    let longest = 0;
    const timer = setInterval(() => {
      const now = process.cpuUsage(last);
      longest = Math.max(longest, (now.user + now.system) / 1000);
      last = process.cpuUsage();
    }, 5);
    return {
      stop: () => {
        clearInterval(timer);
        return longest;
      },
    };
  };

  /** A request with exactly these headers and body bytes (fetch adds a Content-Type of its own to a string body). */
  const rawRequest = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const request = httpRequest(`${api.url}${path}`, { method, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : undefined }));
      });
      request.on('error', reject);
      request.end(body);
    });

  describe('415 UNSUPPORTED_MEDIA_TYPE', () => {
    it('a form, text, multipart or untyped body creates no store; JSON (any case, UTF-8 charset) does', async () => {
      const session = await signUp(api);
      const token = session.access_token;
      const refused = [
        ['application/x-www-form-urlencoded', 'name=Form+store'],
        ['text/plain', '{"name":"Text store"}'],
        ['multipart/form-data; boundary=x', MULTIPART],
        ['application/json; charset=latin1', '{"name":"Latin store"}'],
        ['application/merge-patch+json', '{"name":"Merge store"}'],
      ];
      for (const [type, raw] of refused) {
        const result = await api.request('POST', STORES, { token, raw, headers: { 'content-type': type } });
        expect({ type, status: result.status, body: result.body }).toEqual({
          type,
          status: 415,
          body: REFUSED,
        });
      }
      const untyped = await rawRequest('POST', STORES, { authorization: `Bearer ${token}` }, '{"name":"Untyped"}');
      expect(untyped.status).toBe(415);
      expect(untyped.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(await storesOf(session.user.id)).toBe(0);

      for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset="UTF-8"']) {
        const headers = { 'content-type': type };
        const made = await api.request('POST', STORES, { token, body: { name: type }, headers });
        expect({ type, status: made.status }).toEqual({ type, status: 201 });
      }
      expect(await storesOf(session.user.id)).toBe(3);
    });

    it('a PATCH in another type changes nothing; a request without a body passes whatever its type', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Kept name');
      const patched = await api.request('PATCH', `/functions/v1/stores/${storeId}`, {
        token,
        raw: 'name=Changed',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(patched.status).toBe(415);
      expect((await db.query('SELECT name FROM stores WHERE id = $1', [storeId]))[0].name).toBe('Kept name');

      const mug = { name: 'Mug', price: 9 };
      const product = await api.request('POST', `${STORES}/${storeId}/products`, { token, body: mug });
      expect(product.status).toBe(201);
      const path = `/functions/v1/products/${product.body.product.id}`;
      const authorization = `Bearer ${token}`;
      const deleted = await rawRequest('DELETE', path, { authorization, 'content-type': 'text/plain' });
      expect(deleted.status).toBe(200);
      const again = await rawRequest('DELETE', path, { authorization: `Bearer ${token}` });
      expect(again.status).toBe(404);
    });

    it('a browser on an allowed origin can read the 415', async () => {
      const { token } = await merchantWithStore(api);
      const result = await api.request('POST', '/functions/v1/stores', {
        token,
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      });
      expect(result.status).toBe(415);
      expect(result.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    });

    it('/auth/v1 keeps the body types it took (GoTrue clients send JSON)', async () => {
      const email = uniqueEmail();
      await signUp(api, {}, email);
      const form = await api.request('POST', '/auth/v1/token?grant_type=password', {
        headers: { apikey: PUBLIC_KEY, 'content-type': 'application/x-www-form-urlencoded' },
        raw: new URLSearchParams({ email, password: 'correct horse battery' }).toString(),
      });
      expect(form.status).toBe(200);
      expect(form.body.access_token).toEqual(expect.any(String));
    });
  });

  describe('RateLimit headers', () => {
    const limitOf = (headers: Headers) => ({
      limit: headers.get('ratelimit-limit'),
      remaining: headers.get('ratelimit-remaining'),
      reset: Number(headers.get('ratelimit-reset')),
    });

    it('count down per caller and route, with the seconds until the window resets; browsers read them', async () => {
      const { token } = await merchantWithStore(api);
      const first = await limited.request('GET', '/functions/v1/stores', { token, headers: { origin: ORIGIN } });
      const second = await limited.request('GET', '/functions/v1/stores', { token });
      expect(first.status).toBe(200);
      expect(limitOf(first.headers)).toMatchObject({ limit: String(LIMIT), remaining: String(LIMIT - 1) });
      expect(limitOf(second.headers)).toMatchObject({ limit: String(LIMIT), remaining: String(LIMIT - 2) });
      for (const answer of [first, second]) {
        expect(limitOf(answer.headers).reset).toBeGreaterThanOrEqual(1);
        expect(limitOf(answer.headers).reset).toBeLessThanOrEqual(60);
      }
      const exposed = first.headers
        .get('access-control-expose-headers')!
        .split(',')
        .map((name) => name.trim());
      expect(exposed).toEqual(expect.arrayContaining(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']));
    });

    it('are on a 404, a 400 and a 403; a 401 (nobody counted) has none', async () => {
      const { token, storeId } = await merchantWithStore(api);
      const unknownProduct = '/functions/v1/products/00000000-0000-4000-8000-000000000000';
      const missing = await limited.request('GET', unknownProduct, { token });
      expect(missing.status).toBe(404);
      expect(limitOf(missing.headers).remaining).toBe(String(LIMIT - 1));
      const invalid = await limited.request('PATCH', `/functions/v1/stores/${storeId}`, { token, body: { name: 42 } });
      expect(invalid.status).toBe(400);
      expect(limitOf(invalid.headers).remaining).toBe(String(LIMIT - 1));
      const customer = (await signUp(api, { role: 'customer', store_id: storeId })).access_token;
      const forbidden = await limited.request('GET', `/functions/v1/stores/${storeId}/orders`, { token: customer });
      expect(forbidden.status).toBe(403);
      expect(limitOf(forbidden.headers).limit).toBe(String(LIMIT));
      const anonymous = await limited.request('GET', '/functions/v1/stores');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('ratelimit-limit')).toBeNull();
    });

    it('are declared in the OpenAPI document on every /functions/v1 answer but the 401', async () => {
      const doc = (await api.request('GET', '/docs-json')).body;
      const names = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
      expect(Object.keys(doc.components.headers)).toEqual(names);
      const responses = doc.paths['/functions/v1/stores'].post.responses;
      const remaining = { $ref: '#/components/headers/RateLimit-Remaining' };
      expect(responses['201'].headers['RateLimit-Remaining']).toEqual(remaining);
      expect(Object.keys(responses['400'].headers)).toHaveLength(3);
      expect(responses['401'].headers).toBeUndefined();
      expect(doc.paths['/auth/v1/signup'].post.responses['200'].headers).toBeUndefined();
    });

    it('a 429 has Retry-After, Remaining 0 and Reset', async () => {
      const { token } = await merchantWithStore(api);
      const answers = [];
      for (let i = 0; i <= LIMIT; i++) answers.push(await limited.request('GET', '/functions/v1/stores', { token }));
      expect(answers.map((answer) => answer.status)).toEqual([...Array(LIMIT).fill(200), 429]);
      expect(answers[LIMIT - 1]!.headers.get('ratelimit-remaining')).toBe('0');
      const refused = answers[LIMIT]!;
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(limitOf(refused.headers)).toEqual({ limit: String(LIMIT), remaining: '0', reset: retryAfter });
    });

    it('are fresh on an idempotent replay, whose body stays byte for byte', async () => {
      const { token, storeId } = await merchantWithStore(api);
      await connectSandbox(api, token, storeId, 'x');
      const body = JSON.stringify({ store_id: storeId, platforms: ['x'], content: { text: 'Replayed post' } });
      const send = () =>
        fetch(`${limited.url}/functions/v1/social-publish`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': 'edges-replay-1',
          },
          body,
        });
      const first = await send();
      const replay = await send();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(await first.text());
      expect(first.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
      expect(replay.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 2));
    });
  });

  describe('text checks', () => {
    it('hostile post texts are refused with a 400 without holding the event loop 50 ms', async () => {
      const callers = await Promise.all([0, 1, 2, 3].map(() => merchantWithStore(api)));
      for (const { token, storeId } of callers) await connectSandbox(api, token, storeId, 'x');
      const texts = [
        'a.'.repeat(30_000),
        '中.'.repeat(30_000),
        `${'中.'.repeat(127)} `.repeat(245),
        `https://${'ab.'.repeat(20_000)}`,
        'a'.repeat(63_207),
      ];
      // Four callers at once with each text in turn, as the stall was found (four calls stalled it for 26 s).
      const busy = loopBusy();
      const answers = [];
      for (const text of texts) {
        const body = (storeId: string) => ({ store_id: storeId, platforms: ['x'], content: { text } });
        const sent = callers.map(({ token, storeId }) =>
          api.request('POST', '/functions/v1/social-publish', { token, body: body(storeId) }),
        );
        answers.push(...(await Promise.all(sent)));
      }
      const longest = busy.stop();
      expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(
        Array(texts.length * callers.length).fill([400, 'VALIDATION_FAILED']),
      );
      expect(answers[0]!.body.error.details).toEqual([
        {
          field: 'content',
          platform: 'x',
          message: expect.stringMatching(/X allows 280 weighted characters .* this has more than 1,120$/),
        },
      ]);
      expect(longest).toBeLessThan(50);
    });
  });
});
