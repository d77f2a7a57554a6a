import fc from 'fast-check';
import {
  PUBLIC_KEY,
  merchantWithStore,
  signUp,
  startApp,
  uniqueEmail,
  type HttpResult,
  type TestApp,
  TEST_ADMIN,
} from './support/app.js';
import { connectSandbox } from './support/social.js';

/**
 * Input fuzzing: every POST, PATCH and PUT of the OpenAPI document gets generated bodies — wrong
 * types, missing and unknown fields, huge strings, unicode (lone surrogates and NUL too), deeply
 * nested junk and text that is not JSON — on real and foreign ids. No answer may be a 5xx; every
 * 4xx is in its surface's error envelope and none carries a stack trace. FUZZ_RUNS sets the number
 * of requests per operation (default 100).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const ADMIN_EMAIL = TEST_ADMIN.email;
const ADMIN_PASSWORD = TEST_ADMIN.password;
const DEAD_URL = 'http://127.0.0.1:9/hook';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  example?: unknown;
  oneOf?: Schema[];
  allOf?: Schema[];
  anyOf?: Schema[];
};
interface Operation {
  method: string;
  path: string;
  schema?: Schema;
  query: string[];
  headers: string[];
  secured: boolean;
}

/** A value of any JSON type, some of them nasty: the "wrong type" of every field. */
const junkString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  // Lone surrogates, NUL and other control characters: JSON can carry them, PostgreSQL text cannot hold NUL.
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff x',
    '😀'.repeat(50),
    ' ',
    '',
    '%00',
    '../../etc/passwd',
    "'; DROP TABLE stores; --",
  ),
  fc.constantFrom('x'.repeat(100_000), 'é'.repeat(70_000), '9'.repeat(400)),
  fc.constantFrom(
    'javascript:alert(1)',
    'http://169.254.169.254/latest',
    'ftp://x',
    'https://',
    'not a url',
    '<script>x</script>',
  ),
  fc.constantFrom('2026-13-45T99:99:99Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'tomorrow'),
);
const junkNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, -0.001, 1e308, -1e308, 2 ** 31, 2 ** 53 + 1, 1e-320, 0.1 + 0.2),
);
const { nested } = fc.letrec((tie) => ({
  nested: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    junkNumber,
    junkString,
    fc.array(tie('nested'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('nested'), { maxKeys: 4 }),
  ),
}));
/** Nesting far past anything a route expects. */
const deep = fc.integer({ min: 50, max: 3000 }).map((depth) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
});
const junk: fc.Arbitrary<unknown> = fc.oneof(
  nested,
  deep,
  junkString,
  junkNumber,
  fc.constantFrom(null, true, false, [], {}),
);

describe('input fuzzing (every POST, PATCH and PUT of /docs-json, and its reads and deletes with parameters)', () => {
  let api: TestApp;
  let doc: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };
  const ids: Record<string, string[]> = {};
  let tokens: string[] = [];
  const seen = { requests: 0, byStatus: new Map<number, number>() };

  const resolve = (schema: Schema | undefined): Schema | undefined => {
    if (!schema?.$ref) return schema;
    return resolve(doc.components.schemas[schema.$ref.split('/').pop()!]);
  };

  /** A value that follows the schema where it can, to get past the first checks and reach deeper code. */
  const plausible = (schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> => {
    const s = resolve(schema);
    if (!s || depth > 4) return junk;
    const variants = s.oneOf ?? s.anyOf ?? s.allOf;
    if (variants) return fc.oneof(...variants.map((v) => plausible(v, depth + 1)));
    const options: fc.Arbitrary<unknown>[] = [junk];
    if (s.example !== undefined) options.push(fc.constant(s.example));
    if (s.enum) options.push(fc.constantFrom(...s.enum));
    switch (s.type) {
      case 'object':
        options.push(objectFor(s, depth));
        break;
      case 'array':
        options.push(
          fc.array(plausible(s.items, depth + 1), { maxLength: 5 }),
          fc.array(plausible(s.items, depth + 1), { minLength: 50, maxLength: 120 }),
        );
        break;
      case 'string':
        options.push(junkString, fc.constantFrom(...Object.values(ids).flat()));
        break;
      case 'integer':
      case 'number':
        options.push(junkNumber, fc.integer({ min: -5, max: 1000 }));
        break;
      case 'boolean':
        options.push(fc.boolean());
        break;
    }
    return fc.oneof(...options);
  };

  /** An object of the schema's fields, each present or missing, plausible or junk, maybe with unknown fields. */
  const objectFor = (s: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> => {
    const fields = Object.fromEntries(
      Object.entries(s.properties ?? {}).map(([key, field]) => [key, plausible(field, depth + 1)]),
    );
    return fc
      .tuple(
        fc.record(fields, { requiredKeys: [] }),
        fc.option(fc.dictionary(fc.string({ maxLength: 10 }), junk, { maxKeys: 3 }), { nil: undefined }),
      )
      .map(([known, extra]) => ({ ...extra, ...known }));
  };

  /** The schema's documented example, built from its fields' examples where it has none of its own. */
  const exampleOf = (schema: Schema | undefined, depth = 0): unknown => {
    const s = resolve(schema);
    if (!s || depth > 6) return undefined;
    if (s.example !== undefined) return s.example;
    const variants = s.oneOf ?? s.anyOf ?? s.allOf;
    if (variants) return exampleOf(variants[0], depth + 1);
    if (s.type === 'array') return [exampleOf(s.items, depth + 1)];
    if (s.enum) return s.enum[0];
    if (s.type !== 'object' && !s.properties) return undefined;
    return Object.fromEntries(
      Object.entries(s.properties ?? {}).map(([key, field]) => [key, exampleOf(field, depth + 1)]),
    );
  };

  /** A valid-looking body with one field changed: removed, or set to junk. Gets past the other fields' checks. */
  const oneFieldOff = (schema: Schema): fc.Arbitrary<unknown> => {
    const example = exampleOf(schema);
    if (example === null || typeof example !== 'object' || Array.isArray(example)) return fc.constant(example);
    const keys = Object.keys(example);
    if (keys.length === 0) return fc.constant(example);
    return fc.tuple(fc.constantFrom(...keys), fc.option(junk, { nil: undefined, freq: 4 })).map(([key, value]) => {
      const copy: Record<string, unknown> = { ...example };
      if (value === undefined) delete copy[key];
      else copy[key] = value;
      return copy;
    });
  };

  /** What goes on the wire: a JSON body (mostly), or text that is not JSON at all. */
  const bodyFor = (op: Operation): fc.Arbitrary<{ raw: string; contentType: string }> => {
    const json = (value: fc.Arbitrary<unknown>) =>
      value.map((v) => ({ raw: JSON.stringify(v) ?? 'null', contentType: 'application/json' }));
    const shaped = op.schema
      ? [
          json(fc.constant(exampleOf(op.schema))),
          json(oneFieldOff(op.schema)),
          json(oneFieldOff(op.schema)),
          json(plausible(op.schema)),
          json(plausible(op.schema)),
        ]
      : [];
    return fc.oneof(
      ...shaped,
      json(junk),
      fc.record({
        raw: fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom(
            '{',
            '{"a":',
            '[1,2',
            '{"a":1}{"b":2}',
            'nul',
            '\u0000',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{"x":1}}}',
          ),
        ),
        contentType: fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
        ),
      }),
    );
  };

  /** A real id of the owner's store, one of the other tenant's, a random UUID, or junk. */
  const idFor = (name: string): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...(ids[name] ?? ids.random)) },
      { weight: 1, arbitrary: fc.uuid() },
      {
        weight: 1,
        arbitrary: fc
          .oneof(
            fc.constantFrom('abc', '0', '-1', '..', 'null', '%', '%00', '%ZZ', '😀', 'x'.repeat(5000)),
            fc.string({ minLength: 1, maxLength: 20 }),
          )
          .map((value) => encodeURIComponent(value)),
      },
      // Not valid percent-encoding at all.
      { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', 'a%2', '%C0%80') },
    );

  const queryFor = (op: Operation): fc.Arbitrary<string> => {
    if (op.query.length === 0) return fc.constant('');
    const values: Record<string, fc.Arbitrary<string>> = {
      grant_type: fc.constantFrom('password', 'refresh_token', 'id_token', 'pkce', 'junk', ''),
      scope: fc.constantFrom('local', 'global', 'others', 'nope', ''),
      limit: fc.oneof(fc.constantFrom('1', '20', '100', '0', '101', '-1', '1.5', '1e3', 'abc', ''), junkString),
      since: fc.oneof(
        fc.constantFrom(
          '2026-01-01T00:00:00Z',
          '1969-12-31T23:59:59Z',
          '2026-01-01',
          '2026-01-01T00:00:00',
          '+275760-09-13T00:00:00Z',
        ),
        junkString,
      ),
      type: fc.oneof(fc.constantFrom('order.paid', 'webhook.test', 'order.*', ''), junkString),
      // Any text a URL of a few kilobytes can carry (past about 16 KiB Node's HTTP parser answers 431 before the app is
      // asked).
      redirect_to: fc.oneof(
        fc.constantFrom(
          'http://localhost:5173/welcome',
          'https://evil.example/x',
          'javascript:alert(1)',
          '//evil.example',
          '',
        ),
        fc.string({ unit: 'binary', maxLength: 2000 }),
      ),
    };
    // Past about 16 KiB of URL Node's HTTP parser answers 431 before the app is asked: values are cut to 400 characters
    // (an é takes 6 in the URL, and a route has up to 5 parameters).
    const bounded = (value: fc.Arbitrary<string>) => value.map((text) => text.slice(0, 400));
    const fields = Object.fromEntries(op.query.map((name) => [name, bounded(values[name] ?? junkString)]));
    return fc.record(fields, { requiredKeys: [] }).map((query) => {
      const text = new URLSearchParams(query as Record<string, string>).toString();
      return text ? `?${text}` : '';
    });
  };

  /** Header values: fetch only sends Latin-1, so junk here is printable ASCII of any length. */
  const headersFor = (op: Operation): fc.Arbitrary<Record<string, string>> =>
    fc.record(
      Object.fromEntries(
        op.headers.map((name) => [
          name,
          fc.oneof(
            fc.uuid(),
            fc.string({
              unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
              maxLength: 300,
            }),
          ),
        ]),
      ),
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, string>>;

  /** What is wrong with an answer: a 5xx, a stack trace, or a 4xx outside its surface's error envelope. */
  const problemsOf = (path: string, result: HttpResult): string[] => {
    seen.requests++;
    seen.byStatus.set(result.status, (seen.byStatus.get(result.status) ?? 0) + 1);
    const problems: string[] = [];
    if (result.status >= 500) problems.push(`answered ${result.status}`);
    const text = typeof result.body === 'string' ? result.body : JSON.stringify(result.body ?? '');
    if (/\n\s+at |node_modules|\.[jt]s:\d+:\d+|QueryFailedError|TypeError|RangeError|SyntaxError:/.test(text))
      problems.push('a stack trace or internal error name in the body');
    if (result.status < 400) return problems;
    const body = result.body;
    if (path.startsWith('/auth/v1/')) {
      // The GoTrue error shape {code, error_code, msg}.
      const keys = Object.keys(body ?? {})
        .sort()
        .join(',');
      if (
        keys !== 'code,error_code,msg' ||
        body.code !== result.status ||
        typeof body.error_code !== 'string' ||
        typeof body.msg !== 'string'
      )
        problems.push('not the GoTrue error shape {code, error_code, msg}');
    } else {
      const error = body?.error;
      const envelope =
        Object.keys(body ?? {})
          .sort()
          .join(',') === 'error,success' &&
        body.success === false &&
        Object.keys(error ?? {}).every((key) => ['code', 'message', 'details'].includes(key)) &&
        /^[A-Z][A-Z_]+$/.test(error?.code) &&
        typeof error?.message === 'string' &&
        error.message.length > 0 &&
        (error.details === undefined || (typeof error.details === 'object' && error.details !== null));
      if (!envelope) problems.push('not the error envelope {success: false, error: {code, message, details?}}');
    }
    return problems;
  };

  beforeAll(async () => {
    api = await startApp({
      RATE_LIMIT_PER_MINUTE: '1000000',
      SIGNIN_LIMIT_PER_IP: '1000000',
      SIGNIN_LIMIT_PER_EMAIL: '1000000',
      SIGNIN_ACCOUNT_FAILURES_PER_HOUR: '1000000',
      SIGNIN_KNOWN_FAILURES_PER_HOUR: '1000000',
      AUTH_MAIL_LIMIT_PER_IP: '1000000',
      AUTH_MAIL_LIMIT_PER_EMAIL: '1000000',
      AUTH_VERIFY_LIMIT_PER_IP: '1000000',
      AUTH_VERIFY_FAILURES_PER_EMAIL: '1000000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      SOCIAL_MODE: 'sandbox',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      // Its own Bull queues: jobs the fuzzing makes (webhook tests, scheduled posts) stay with this app.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}fuzz:`,
    });
    doc = (await api.request('GET', '/docs-json')).body;

    const owner = await merchantWithStore(api, 'Fuzzed store');
    const other = await merchantWithStore(api, 'Other tenant');
    const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    const call = async (token: string, method: string, path: string, body?: unknown) => {
      const result = await api.request(method, `/functions/v1${path}`, { token, body });
      if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${JSON.stringify(result.body)}`);
      return result.body;
    };
    const customer = await signUp(api, { role: 'customer', store_id: owner.storeId });
    tokens = [owner.token, owner.token, owner.token, other.token, admin.body.access_token, customer.access_token];
    // A store key of the owner's store with every permission a key may hold: a principal of its own.
    const storeKey = await call(owner.token, 'POST', `/stores/${owner.storeId}/api-keys`, {
      name: 'Fuzzed key',
      permissions: ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing'],
    });
    tokens.push(storeKey.secret);

    // Real rows of both tenants, for the path parameters.
    for (const [who, { token, storeId }] of [
      ['owner', owner],
      ['other', other],
    ] as const) {
      await call(token, 'POST', `/stores/${storeId}/members`, {
        email: uniqueEmail(`${who}-member`),
        permissions: ['catalog'],
      });
      const members = await call(token, 'GET', `/stores/${storeId}/members`);
      const product = await call(token, 'POST', `/stores/${storeId}/products`, {
        name: 'Fuzzed product',
        price: 10,
        inventory_quantity: 1000,
        status: 'active',
      });
      const customerRow = await call(token, 'POST', `/stores/${storeId}/customers`, {
        name: 'Fuzzed customer',
        email: uniqueEmail('customer'),
      });
      const order = await call(token, 'POST', `/stores/${storeId}/orders`, {
        items: [{ product_id: product.product.id, quantity: 1 }],
      });
      const webhook = await call(token, 'POST', '/webhooks/register', {
        store_id: storeId,
        url: DEAD_URL,
        events: ['order.created'],
      });
      await call(token, 'POST', `/webhooks/${webhook.webhook.id}/test`);
      const deliveries = await call(token, 'GET', `/webhooks/${webhook.webhook.id}/deliveries`);
      await connectSandbox(api, token, storeId, 'x');
      const apiKey = await call(token, 'POST', `/stores/${storeId}/api-keys`, {
        name: 'Fuzzed',
        permissions: ['catalog'],
      });
      const add = (name: string, ...values: string[]) => (ids[name] ??= []).push(...values);
      add('store_id', storeId);
      add('member_id', ...members.data.map((m: { id: string }) => m.id));
      add('product_id', product.product.id);
      add('customer_id', customerRow.customer.id);
      add('order_id', order.order.id);
      add('webhook_id', webhook.webhook.id);
      add('delivery_id', ...deliveries.data.map((d: { id: string }) => d.id));
      add('api_key_id', apiKey.api_key.id);
    }
    ids.random = ['00000000-0000-0000-0000-000000000000'];
  });
  afterAll(async () => {
    // What the run covered, for the reader of the CI log.
    console.info(
      `fuzz: ${seen.requests} requests, ` +
        `statuses ${JSON.stringify(Object.fromEntries([...seen.byStatus].sort(([a], [b]) => a - b)))}`,
    );
    await api?.close();
  });

  /**
   * The document's operations of these methods; reads and deletes only under /functions/v1 and only with parameters.
   */
  const operations = (methodsWanted = ['post', 'patch', 'put']): Operation[] => {
    const found: Operation[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!methodsWanted.includes(method)) continue;
        const parameters = (op.parameters ?? []) as { in: string; name: string }[];
        const bodiless = method === 'get' || method === 'delete';
        if (bodiless && (!path.startsWith('/functions/v1/') || parameters.every((p) => p.in === 'header'))) continue;
        found.push({
          method: method.toUpperCase(),
          path,
          schema: op.requestBody?.content?.['application/json']?.schema,
          query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          headers: parameters.filter((p) => p.in === 'header').map((p) => p.name),
          secured: (op.security ?? []).length > 0,
        });
      }
    }
    return found;
  };

  it('finds the write routes of the API in the document', () => {
    const found = operations().map((op) => `${op.method} ${op.path}`);
    expect(found.length).toBeGreaterThanOrEqual(25);
    expect(found).toEqual(
      expect.arrayContaining([
        'POST /auth/v1/signup',
        'POST /auth/v1/token',
        'PUT /auth/v1/user',
        'POST /auth/v1/recover',
        'POST /auth/v1/resend',
        'POST /auth/v1/verify',
        'POST /auth/v1/otp',
        'PATCH /functions/v1/stores/{store_id}/mail-settings',
        'POST /functions/v1/stores/{store_id}/orders',
        'PATCH /functions/v1/orders/{order_id}',
        'POST /functions/v1/social-publish',
        'POST /functions/v1/generate-product',
        'PATCH /functions/v1/webhooks/{webhook_id}',
      ]),
    );
  });

  it(
    'answers generated bodies on every write route with no 5xx and the error envelope on each 4xx',
    async () => {
      // Every bad answer of the run is collected, so one run shows them all; each is told in a few lines.
      const failures: string[] = [];
      const short = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
      for (const op of operations()) {
        const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        const request = fc.record({
          path: fc
            .tuple(...params.map(idFor))
            .map((values) => params.reduce((path, name, i) => path.replace(`{${name}}`, values[i]), op.path)),
          query: queryFor(op),
          headers: headersFor(op),
          body: bodyFor(op),
          token: fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom(...tokens) },
            { weight: 1, arbitrary: fc.constantFrom('', 'not.a.jwt', PUBLIC_KEY) },
          ),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ path, query, headers, body, token }) => {
            const auth = path.startsWith('/auth/v1/');
            let bearer = token;
            // Logging out ends the session it is called with: it gets a session of its own. (A new password
            // ends the account's other sessions only, and each of these accounts has one.)
            if (path === '/auth/v1/logout' && token) bearer = (await signUp(api)).access_token;
            const result = await api.request(op.method, `${path}${query}`, {
              raw: body.raw,
              headers: {
                ...headers,
                'content-type': body.contentType,
                ...(auth ? { apikey: PUBLIC_KEY } : {}),
                ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
              },
            });
            const problems = problemsOf(path, result);
            if (problems.length > 0 && failures.length < 20)
              failures.push(
                `${op.method} ${short(path + query)} [${body.contentType}] ${short(body.raw)} ` +
                  `→ ${result.status} ${short(JSON.stringify(result.body) ?? '')}: ${problems.join('; ')}`,
              );
          }),
          { numRuns: RUNS },
        );
      }
      expect(failures).toEqual([]);
      // About 40 routes; a request takes a few milliseconds (password routes hash with argon2, tens of
      // milliseconds, more on a busy machine), so a generous 20 ms each plus a minute.
    },
    60_000 + RUNS * 40 * 20,
  );

  it(
    'answers generated ids and queries on every read and delete of /functions/v1 with parameters, with no 5xx',
    async () => {
      const failures: string[] = [];
      const short = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
      const reads = operations(['get', 'delete']);
      expect(reads.map((op) => `${op.method} ${op.path}`)).toEqual(
        expect.arrayContaining([
          'GET /functions/v1/stores/{store_id}/events',
          'GET /functions/v1/stores/{store_id}/api-keys',
          'DELETE /functions/v1/api-keys/{api_key_id}',
        ]),
      );
      for (const op of reads) {
        const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        const request = fc.record({
          path: fc
            .tuple(...params.map(idFor))
            .map((values) => params.reduce((path, name, i) => path.replace(`{${name}}`, values[i]), op.path)),
          query: queryFor(op),
          token: fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom(...tokens) },
            { weight: 1, arbitrary: fc.constantFrom('', 'not.a.jwt', PUBLIC_KEY, 'sk_not-a-key') },
          ),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ path, query, token }) => {
            const result = await api.request(op.method, `${path}${query}`, {
              headers: token ? { authorization: `Bearer ${token}` } : {},
            });
            const problems = problemsOf(path, result);
            if (problems.length > 0 && failures.length < 20)
              failures.push(
                `${op.method} ${short(path + query)} ` +
                  `→ ${result.status} ${short(JSON.stringify(result.body) ?? '')}: ${problems.join('; ')}`,
              );
          }),
          { numRuns: RUNS },
        );
      }
      expect(failures).toEqual([]);
    },
    60_000 + RUNS * 40 * 10,
  );
});
