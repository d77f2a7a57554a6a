import { PUBLIC_KEY, signUp, startApp, type TestApp } from './support/app.js';

/** The HTTP conventions: error envelope, limits, CORS, docs, health and metrics. */
describe('HTTP contract', () => {
  let api: TestApp;
  let token: string;

  beforeAll(async () => {
    api = await startApp({ CORS_ORIGINS: 'http://localhost:5173' });
    token = (await signUp(api)).access_token;
  });
  afterAll(() => api.close());

  it('400 VALIDATION_FAILED lists each bad field', async () => {
    const result = await api.request('POST', '/functions/v1/stores', { token, body: { name: 42, extra: true } });
    expect(result.status).toBe(400);
    expect(result.body.success).toBe(false);
    expect(result.body.error.code).toBe('VALIDATION_FAILED');
    expect(result.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'extra', message: 'is not a known field' },
        { field: 'name', message: 'name must be a string' },
      ]),
    );
  });

  it('400 MALFORMED_JSON when the body is not JSON', async () => {
    const result = await api.request('POST', '/functions/v1/stores', { token, raw: '{"name": ' });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      success: false,
      error: { code: 'MALFORMED_JSON', message: 'Body is not valid JSON' },
    });
  });

  it('refuses NUL characters, which PostgreSQL text cannot hold, with a 400 naming the field', async () => {
    const result = await api.request('POST', '/functions/v1/stores', { token, raw: '{"name":"bad\\u0000name"}' });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'name' }] });
    const auth = await api.request('POST', '/auth/v1/token?grant_type=password', {
      token: PUBLIC_KEY,
      raw: '{"email":"a\\u0000@example.com","password":"x"}',
    });
    expect(auth.status).toBe(400);
    expect(auth.body.error_code).toBe('validation_failed');
  });

  it(
    'refuses unpaired surrogates (\\udfff), which have no UTF-8 form, ' +
      'with a 400 naming the field (found by the fuzz test: a 500 before)',
    async () => {
      const result = await api.request('POST', '/functions/v1/stores', {
        token,
        raw: '{"name":"ok","currency":"\\udfff x"}',
      });
      expect(result.status).toBe(400);
      expect(result.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'currency', message: expect.stringContaining('well-formed Unicode') }],
      });
      const auth = await api.request('POST', '/auth/v1/signup', {
        headers: { apikey: PUBLIC_KEY },
        raw: '{"email":"\\udfff x","password":"long enough pass"}',
      });
      expect(auth.status).toBe(400);
      expect(auth.body.error_code).toBe('validation_failed');
      const emoji = await api.request('POST', '/functions/v1/stores', {
        token,
        raw: '{"name":"Smile \\ud83d\\ude00"}',
      });
      expect(emoji.status).toBe(201);
      expect(emoji.body.store.name).toBe('Smile 😀');
    },
  );

  it(
    'refuses bodies nested deeper than 32 levels with a 400, ' +
      'on both surfaces (found by the fuzz test: a 500 before)',
    async () => {
      const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const result = await api.request('POST', '/functions/v1/stores', {
        token,
        raw: `{"name":"x","extra":${deep(40)}}`,
      });
      expect(result.status).toBe(400);
      expect(result.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: expect.stringMatching(/^extra\.a\.a/), message: 'is nested deeper than 32 levels' }],
      });
      const auth = await api.request('POST', '/auth/v1/signup', {
        headers: { apikey: PUBLIC_KEY },
        raw: `{"email":"deep@example.com","password":${deep(3000)}}`,
      });
      expect(auth.status).toBe(400);
      expect(auth.body).toEqual({ code: 400, error_code: 'validation_failed', msg: expect.any(String) });
      // 32 levels are read as usual: the store is refused for its unknown field, not for its depth.
      const shallow = await api.request('POST', '/functions/v1/stores', {
        token,
        raw: `{"name":"x","extra":${deep(31)}}`,
      });
      expect(shallow.status).toBe(400);
      expect(shallow.body.error.details).toEqual([{ field: 'extra', message: 'is not a known field' }]);
    },
  );

  it(
    'a path that is not valid percent-encoding, or a path ' + 'segment over 100 characters, is a 400 in the envelope',
    async () => {
      const long = await api.request('PATCH', `/functions/v1/products/${'x'.repeat(101)}`, { token, body: {} });
      expect(long.status).toBe(400);
      expect(long.body).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_FAILED',
          message: 'A path segment is longer than 100 characters',
          details: [{ field: 'path', message: 'A path segment is longer than 100 characters' }],
        },
      });
      expect(long.headers.get('x-request-id')).toBeTruthy();
      const malformed = await api.request('GET', '/functions/v1/products/%E0%A4%A', { token });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'The path is not a valid URL (malformed percent-encoding)',
      });
    },
  );

  it('413 PAYLOAD_TOO_LARGE above 1 MiB, and a body just under it is read', async () => {
    const big = await api.request('POST', '/functions/v1/stores', {
      token,
      raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const under = await api.request('POST', '/functions/v1/stores', {
      token,
      raw: JSON.stringify({ name: 'x'.repeat(1000 * 1000) }),
    });
    expect(under.status).toBe(400);
    expect(under.body.error.details[0].field).toBe('name');
  });

  it('unknown routes answer 404 in the envelope, with no stack trace', async () => {
    const result = await api.request('GET', '/functions/v1/no-such-function', { token });
    expect(result.status).toBe(404);
    expect(result.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Route not found: GET /functions/v1/no-such-function' },
    });
    expect(JSON.stringify(result.body)).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it('every answer carries a request id, echoing a sane X-Request-Id', async () => {
    const echoed = await api.request('GET', '/health', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const generated = await api.request('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets a browser app using supabase-js call the API (CORS preflight)', async () => {
    const response = await fetch(`${api.url}/functions/v1/stores`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, apikey, x-client-info, content-type',
      },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['authorization', 'apikey', 'x-client-info', 'content-type'])
      expect(allowed).toContain(header);
    const foreign = await fetch(`${api.url}/functions/v1/stores`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('/health answers, /health/ready checks PostgreSQL and Redis', async () => {
    expect((await api.request('GET', '/health')).body).toEqual({ status: 'ok' });
    const ready = await api.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details).toMatchObject({ postgres: { status: 'up' }, redis: { status: 'up' } });
  });

  it('/metrics exposes Prometheus metrics, HTTP requests by route included', async () => {
    await api.request('GET', '/functions/v1/stores', { token });
    const metrics = await fetch(`${api.url}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/functions\/v1\/stores",status="200"\} \d+/);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('/docs serves Swagger UI and /docs-json documents every route with examples', async () => {
    const ui = await fetch(`${api.url}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
    const doc = (await api.request('GET', '/docs-json')).body;
    expect(doc.openapi).toMatch(/^3\./);
    const routes = [
      ['post', '/auth/v1/signup'],
      ['post', '/auth/v1/token'],
      ['get', '/auth/v1/user'],
      ['post', '/auth/v1/logout'],
      ['get', '/auth/v1/authorize'],
      ['get', '/auth/v1/callback'],
      ['post', '/functions/v1/stores'],
      ['get', '/functions/v1/stores'],
      ['get', '/functions/v1/stores/{store_id}'],
      ['patch', '/functions/v1/stores/{store_id}'],
      ['post', '/functions/v1/stores/{store_id}/members'],
      ['get', '/functions/v1/stores/{store_id}/members'],
      ['patch', '/functions/v1/stores/{store_id}/members/{member_id}'],
      ['delete', '/functions/v1/stores/{store_id}/members/{member_id}'],
      ['post', '/functions/v1/stores/{store_id}/products'],
      ['get', '/functions/v1/stores/{store_id}/products'],
      ['get', '/functions/v1/products/{product_id}'],
      ['patch', '/functions/v1/products/{product_id}'],
      ['delete', '/functions/v1/products/{product_id}'],
      ['post', '/functions/v1/products/{product_id}/inventory'],
      ['post', '/functions/v1/stores/{store_id}/customers'],
      ['get', '/functions/v1/stores/{store_id}/customers'],
      ['get', '/functions/v1/customers/{customer_id}'],
      ['patch', '/functions/v1/customers/{customer_id}'],
      ['post', '/functions/v1/stores/{store_id}/orders'],
      ['get', '/functions/v1/stores/{store_id}/orders'],
      ['get', '/functions/v1/orders'],
      ['get', '/functions/v1/orders/{order_id}'],
      ['patch', '/functions/v1/orders/{order_id}'],
      ['post', '/functions/v1/webhooks/register'],
      ['get', '/functions/v1/webhooks'],
      ['get', '/functions/v1/webhooks/{webhook_id}'],
      ['patch', '/functions/v1/webhooks/{webhook_id}'],
      ['delete', '/functions/v1/webhooks/{webhook_id}'],
      ['get', '/functions/v1/webhooks/{webhook_id}/deliveries'],
      ['post', '/functions/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver'],
      ['post', '/functions/v1/webhooks/{webhook_id}/test'],
      ['post', '/functions/v1/webhooks/{webhook_id}/recover'],
      ['post', '/functions/v1/webhooks/{webhook_id}/rotate-secret'],
      ['get', '/functions/v1/notifications'],
      ['post', '/functions/v1/generate-product'],
      ['post', '/functions/v1/generate-blog-cover'],
      ['post', '/functions/v1/generate-blog-autopilot'],
      ['post', '/functions/v1/research-social-context'],
      ['post', '/functions/v1/social-generate-content'],
      ['get', '/functions/v1/credits'],
      ['post', '/functions/v1/credits/grant'],
      ['get', '/media/covers/{file}'],
      ['post', '/functions/v1/social-connect'],
      ['get', '/functions/v1/social-connect/start'],
      ['get', '/functions/v1/social-connect/callback'],
      ['get', '/functions/v1/social-accounts'],
      ['delete', '/functions/v1/social-accounts/{account_id}'],
      ['post', '/functions/v1/social-publish'],
      ['delete', '/functions/v1/social-publish/{post_id}'],
      ['get', '/functions/v1/social-posts'],
      ['get', '/health'],
      ['get', '/health/ready'],
    ];
    for (const [method, path] of routes) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.summary, `${method} ${path} summary`).toBeTruthy();
    }
    const createStore = doc.paths['/functions/v1/stores'].post;
    // A typed body: the envelope's fields, the store a $ref to its component schema.
    const created = createStore.responses['201'].content['application/json'].schema;
    expect(created.required).toEqual(['success', 'store']);
    expect(created.properties.store.$ref).toBe('#/components/schemas/StoreView');
    expect(doc.components.schemas.StoreView.properties.name).toMatchObject({
      type: 'string',
      example: 'Blue Fern Goods',
    });
    // The AI functions document what they answer and the headers they take.
    const product = doc.paths['/functions/v1/generate-product'].post;
    expect(product.responses['200'].content['application/json'].schema.properties.product).toEqual({
      $ref: '#/components/schemas/GeneratedProduct',
    });
    expect(doc.components.schemas.GeneratedProduct.properties.ai_credits_used).toMatchObject({
      type: 'integer',
      example: 2,
    });
    for (const status of ['402', '429', '502'])
      expect(product.responses[status], `generate-product ${status}`).toBeDefined();
    expect(product.parameters.map((parameter: { name: string }) => parameter.name)).toContain('Idempotency-Key');
    for (const dto of [
      'CreateStoreDto',
      'InviteMemberDto',
      'CreateProductDto',
      'AdjustInventoryDto',
      'GenerateProductDto',
      'GenerateBlogCoverDto',
      'GenerateBlogAutopilotDto',
      'ResearchSocialContextDto',
      'SocialGenerateContentDto',
      'GrantCreditsDto',
      'SocialConnectDto',
      'SocialPublishDto',
      'PostContentDto',
      'MediaDto',
    ]) {
      for (const [field, property] of Object.entries<any>(doc.components.schemas[dto].properties)) {
        expect(property.description, `${dto}.${field}`).toBeTruthy();
        expect(property.example, `${dto}.${field}`).toBeDefined();
      }
    }
  });

  it(
    '/docs-json types every answer of the auth, commerce, ' +
      'billing and health routes: a schema, not an example alone',
    async () => {
      const doc = (await api.request('GET', '/docs-json')).body;
      const schemas: Record<string, any> = doc.components.schemas;
      const refName = (ref: string) => ref.replace('#/components/schemas/', '');
      // Every schema a route uses, its component schemas followed through $ref.
      const reachable = new Set<string>();
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (node === null || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          // Schemas only: the RateLimit-* header components are referenced the same way.
          const schemaRef = typeof value === 'string' && value.startsWith('#/components/schemas/');
          if (key === '$ref' && schemaRef && !reachable.has(refName(value))) {
            reachable.add(refName(value));
            visit(schemas[refName(value)]);
          } else if (key !== 'example' && key !== 'examples') visit(value);
        }
      };
      // A schema a generated client can type: a type or a $ref (to a schema that exists), all the way down its
      // properties.
      const untyped = (schema: any, at: string): string[] => {
        if (!schema || typeof schema !== 'object') return [`${at}: no schema`];
        if (schema.$ref) return schemas[refName(schema.$ref)] ? [] : [`${at}: ${schema.$ref} does not exist`];
        const parts = ['oneOf', 'anyOf', 'allOf'].flatMap((key) =>
          (schema[key] ?? []).map((part: any, i: number) => untyped(part, `${at}.${key}[${i}]`)),
        );
        if (!schema.type && parts.length === 0) return [`${at}: neither type nor $ref`];
        // A nullable field whose TypeScript type was `X | null` must not fall back to a bare object.
        if (
          schema.nullable &&
          schema.type === 'object' &&
          !schema.properties &&
          !schema.allOf &&
          !schema.additionalProperties
        )
          return [`${at}: nullable typed as a bare object`];
        return [
          ...parts.flat(),
          ...Object.entries<any>(schema.properties ?? {}).flatMap(([name, property]) =>
            untyped(property, `${at}.${name}`),
          ),
          ...(schema.items ? untyped(schema.items, `${at}[]`) : []),
          ...(typeof schema.additionalProperties === 'object' ? untyped(schema.additionalProperties, `${at}{}`) : []),
        ];
      };
      const ours = /^\/(auth\/v1\/|health|functions\/v1\/(stores|products|customers|orders|credits)(\/|$))/;
      const problems: string[] = [];
      let operations = 0;
      for (const [path, item] of Object.entries<Record<string, any>>(doc.paths).filter(([path]) => ours.test(path))) {
        for (const [method, operation] of Object.entries<any>(item)) {
          const route = `${method} ${path}`;
          operations += 1;
          if (!operation.description) problems.push(`${route}: no description`);
          // Declared on each operation, `[{}]` on the routes open to anyone.
          if (!Array.isArray(operation.security) || operation.security.length === 0)
            problems.push(`${route}: no security declared`);
          const statuses = Object.keys(operation.responses);
          if (!statuses.some((status) => /^2\d\d$/.test(status) || status === 'default'))
            problems.push(`${route}: no 2xx or default`);
          visit(operation.requestBody);
          visit(operation.responses);
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            const json = response.content?.['application/json'];
            if (!json) {
              // Only a 204 and a redirect answer without a body.
              if (status !== '204' && status !== '302') problems.push(`${route} ${status}: no JSON body documented`);
              continue;
            }
            problems.push(...untyped(json.schema, `${route} ${status}`));
            // An /auth/v1 error's example repeats its own status (a 422 does not show a 400).
            if (path.startsWith('/auth/v1/') && json.example?.error_code) {
              expect(json.example.code, `${route} ${status}`).toBe(status === 'default' ? 500 : Number(status));
            }
          }
          if (!Object.values<any>(operation.responses).some((response) => response.content?.['application/json'])) {
            problems.push(`${route}: no JSON answer documented at all`);
          }
          if (statuses.includes('302'))
            expect(operation.responses['302'].headers?.Location, `${route} 302 Location`).toBeDefined();
        }
      }
      for (const name of reachable) problems.push(...untyped(schemas[name], name));
      expect(problems).toEqual([]);
      // 12 under /auth/v1; stores 4, mail settings 2, members 4, store keys 2, store events 1, products 6, customers 4,
      // orders 5, credits 2; health 2.
      expect(operations).toBe(44);
      // The fields the issue found typed as objects: now their value type, and nullable.
      for (const [schema, field, type] of [
        ['ProductView', 'compare_price', 'number'],
        ['CreateProductDto', 'compare_price', 'number'],
        ['CustomerView', 'phone', 'string'],
        ['CreateCustomerDto', 'phone', 'string'],
        ['UpdateCustomerDto', 'phone', 'string'],
        ['MemberView', 'user_id', 'string'],
        ['LedgerEntryView', 'function', 'string'],
        ['UserView', 'last_sign_in_at', 'string'],
      ]) {
        expect(schemas[schema].properties[field], `${schema}.${field}`).toMatchObject({ type, nullable: true });
      }
      // What a generated client reads: the store's name, a session's token, the user of a session.
      expect(schemas.StoreView.properties.name.type).toBe('string');
      expect(doc.paths['/auth/v1/token'].post.responses['200'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/SessionView',
      );
      expect(schemas.SessionView.properties.user.$ref).toBe('#/components/schemas/UserView');
      const signUp = doc.paths['/auth/v1/signup'].post.responses;
      expect(signUp['200'].content['application/json'].schema.oneOf).toHaveLength(2);
      expect(signUp['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/GoTrueErrorBody');
    },
  );

  it(
    '/docs-json declares how to call each operation: the ' + 'public key on the key routes, a bearer token elsewhere',
    async () => {
      const doc = (await api.request('GET', '/docs-json')).body;
      const operations = Object.entries<Record<string, { security?: Record<string, string[]>[] }>>(doc.paths).flatMap(
        ([path, item]) =>
          Object.entries(item).map(([method, operation]) => ({
            route: `${method} ${path}`,
            schemes: (operation.security ?? []).flatMap(Object.keys),
          })),
      );
      const schemesOf = (route: string) => operations.find((operation) => operation.route === route)?.schemes;
      // Swagger UI sends the apikey header on these once it is authorized with the public key (a user's token works
      // too).
      for (const route of [
        'post /auth/v1/signup',
        'post /auth/v1/token',
        'post /auth/v1/recover',
        'post /auth/v1/resend',
        'post /auth/v1/verify',
      ])
        expect(schemesOf(route), route).toEqual(['apikey', 'bearer']);
      expect(schemesOf('put /auth/v1/user')).toEqual(['bearer']);
      // Without credentials: health, the OAuth redirects, an e-mail's link, the cover images, the browser's social
      // connect.
      const open = operations.filter((operation) => operation.schemes.length === 0).map((operation) => operation.route);
      for (const route of open)
        expect(route).toMatch(
          new RegExp(
            '^get /(health|media/covers/|auth/v1/(authorize|callback|verify)$' +
              '|functions/v1/social-connect/(start|callback)$|sandbox/)',
          ),
        );
      expect(open).toEqual(
        expect.arrayContaining([
          'get /health',
          'get /functions/v1/social-connect/start',
          'get /functions/v1/social-connect/callback',
        ]),
      );
      // Everything under /functions/v1 but the browser's social connect takes a user's token.
      for (const { route, schemes } of operations.filter(
        (operation) => / \/functions\/v1\//.test(operation.route) && !open.includes(operation.route),
      )) {
        expect(schemes, route).toContain('bearer');
      }
    },
  );
});

describe('general rate limit', () => {
  let api: TestApp;
  beforeAll(async () => {
    // Its own Redis prefix: other test files' requests from 127.0.0.1 must not count against this limit.
    api = await startApp({ RATE_LIMIT_PER_MINUTE: '3', REDIS_PREFIX: `${process.env.REDIS_PREFIX}rate-limit:` });
  });
  afterAll(() => api.close());

  it('answers 429 RATE_LIMITED with Retry-After and details past the limit', async () => {
    const token = (await signUp(api)).access_token;
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await api.request('GET', '/functions/v1/stores', { token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 3, window_seconds: 60 } });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.body.error.details.retry_after_seconds).toBe(Number(last!.headers.get('retry-after')));
  });
});
