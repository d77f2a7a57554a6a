import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { API_TAGS } from '../apps/api/src/openapi.js';
import { merchantWithStore, PUBLIC_KEY, startApp, TEST_ADMIN, type HttpResult, type TestApp } from './support/app.js';
import { callBack, linkOf, localPath, openStart, redirectOf, startConnect } from './support/social.js';

/**
 * The OpenAPI document (/docs-json) as a generated client and a linter read it: Redocly's recommended
 * rules plus the stricter ones of redocly.yaml pass with no error, every JSON answer has a typed
 * schema (no example-only body, which openapi-typescript turns into `unknown`), and the global tags
 * are exactly the ones the operations use, each described. Failures name the operations.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location?: { pointer?: string }[];
}

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: LintProblem[];
}

type Schema = Record<string, any>;
type Content = Record<string, { schema?: Schema }>;
type Operation = {
  tags?: string[];
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Content };
  responses?: Record<string, { content?: Content }>;
};

/** `#/paths/~1functions~1v1~1stores/get/…` → `get /functions/v1/stores …`, so a failure names the operation. */
function readablePointer(pointer = ''): string {
  const parts = pointer
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] === 'paths' && parts.length >= 3)
    return `${parts[2]} ${parts[1]}${parts.length > 3 ? ` /${parts.slice(3).join('/')}` : ''}`;
  return `#/${parts.join('/')}`;
}

/** Runs `redocly lint` with the repository's redocly.yaml on `document`; answers its JSON report. */
async function redoclyLint(document: unknown): Promise<LintReport> {
  const folder = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(folder, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const args = [
      REDOCLY,
      'lint',
      file,
      `--config=${join(ROOT, 'redocly.yaml')}`,
      '--format=json',
      '--max-problems=10000',
    ];
    // No telemetry and no update check: the tests stay off the network.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(process.execPath, args, {
        cwd: folder,
        env,
        maxBuffer: 64 * 1024 * 1024,
      }));
    } catch (error) {
      // Exit status 1 when it found errors: the report is still on stdout.
      stdout = (error as { stdout?: string }).stdout ?? '';
      if (!stdout.trim()) throw error;
    }
    return JSON.parse(stdout.slice(stdout.indexOf('{'))) as LintReport;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Where in `schema` a value's type is left unsaid: a schema with neither `type`, `$ref` nor a combinator. */
function untypedPlaces(schema: Schema | undefined, at: string): string[] {
  if (!schema || typeof schema !== 'object') return [at || '(no schema)'];
  if (schema.$ref) return [];
  const combined = (['allOf', 'oneOf', 'anyOf'] as const).filter((key) => Array.isArray(schema[key]));
  if (!schema.type && !combined.length) return [at || '(the body)'];
  const places: string[] = [];
  for (const key of combined)
    schema[key].forEach((part: Schema, index: number) => places.push(...untypedPlaces(part, `${at}/${key}/${index}`)));
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {}))
    places.push(...untypedPlaces(property, `${at}.${name}`));
  if (schema.type === 'array') places.push(...untypedPlaces(schema.items, `${at}[]`));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    places.push(...untypedPlaces(schema.additionalProperties, `${at}{}`));
  }
  return places;
}

describe('the OpenAPI document (/docs-json)', () => {
  let api: TestApp;
  let doc: {
    paths: Record<string, Record<string, Operation>>;
    tags?: { name: string; description?: string }[];
  } & Record<string, any>;
  let operations: { route: string; operation: Operation }[];

  beforeAll(async () => {
    api = await startApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
    });
    doc = (await api.request('GET', '/docs-json')).body;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({
        route: `${method} ${path}`,
        operation: item[method],
      })),
    );
  });
  afterAll(() => api.close());

  it('passes redocly lint (recommended rules and redocly.yaml) with no error', async () => {
    const report = await redoclyLint(doc);
    const show = (problem: LintProblem) =>
      `${problem.ruleId} at ${readablePointer(problem.location?.[0]?.pointer)}: ${problem.message}`;
    const warnings = report.problems.filter((problem) => problem.severity === 'warn').map(show);
    if (warnings.length) console.warn(`redocly lint: ${warnings.length} warnings\n${warnings.join('\n')}`);
    expect(report.problems.filter((problem) => problem.severity === 'error').map(show)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it('the lint does find errors: a document with an operation lacking its summary and description fails', async () => {
    const broken = structuredClone(doc);
    const health = broken.paths['/health'].get as Record<string, unknown>;
    delete health.summary;
    delete health.description;
    const report = await redoclyLint(broken);
    const found = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} ${readablePointer(problem.location?.[0]?.pointer)}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'operation-summary get /health /summary',
        'operation-description get /health /description',
      ]),
    );
  });

  it(
    'every JSON answer of every operation has a typed schema ' +
      '(a type or a $ref at every level), not an example alone',
    () => {
      const untyped: string[] = [];
      for (const { route, operation } of operations) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          for (const [mediaType, content] of Object.entries(response.content ?? {})) {
            if (!/json/.test(mediaType)) continue;
            for (const place of untypedPlaces(content.schema, '')) untyped.push(`${route} ${status}: ${place}`);
          }
        }
      }
      expect(untyped).toEqual([]);
    },
  );

  it(
    'every request body and every parameter has a typed schema ' +
      'too (a generated client would take `unknown` otherwise)',
    () => {
      const untyped: string[] = [];
      for (const { route, operation } of operations) {
        for (const [mediaType, content] of Object.entries(operation.requestBody?.content ?? {})) {
          if (/json/.test(mediaType))
            for (const place of untypedPlaces(content.schema, '')) untyped.push(`${route} body: ${place}`);
        }
        for (const parameter of operation.parameters ?? []) {
          for (const place of untypedPlaces(parameter.schema, ''))
            untyped.push(`${route} ${parameter.in} ${parameter.name}: ${place}`);
        }
      }
      expect(untyped).toEqual([]);
      // Bodies and parameters were there to check.
      expect(operations.filter(({ operation }) => operation.requestBody).length).toBeGreaterThan(20);
      expect(operations.flatMap(({ operation }) => operation.parameters ?? []).length).toBeGreaterThan(60);
    },
  );

  it('declares exactly the tags its operations use, each with a description', () => {
    const used = new Set(operations.flatMap(({ operation }) => operation.tags ?? []));
    expect(operations.filter(({ operation }) => !operation.tags?.length).map(({ route }) => route)).toEqual([]);
    expect(Object.keys(API_TAGS).filter((tag) => !used.has(tag))).toEqual([]);
    expect([...used].filter((tag) => !(tag in API_TAGS))).toEqual([]);
    expect(doc.tags?.map((tag) => tag.name)).toEqual(Object.keys(API_TAGS));
    for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toBeTruthy();
  });

  it(
    'the answers of the AI, social, webhook and mailbox routes ' +
      'validate against the schemas the document gives them',
    async () => {
      // The document as a JSON Schema (OpenAPI 3.0's `nullable` is Ajv's too); each answer is checked against its
      // operation's schema.
      const ajv = new Ajv({ strict: false, allErrors: true });
      formats.default(ajv);
      ajv.addSchema(doc, 'openapi');
      const mismatches: string[] = [];
      const checked = new Set<string>();
      const call = async (
        token: string,
        method: string,
        route: string,
        path: string,
        status: number,
        body?: unknown,
      ) => {
        const result: HttpResult = await api.request(method, path, { token, body });
        expect(result.status, `${method} ${path}: ${JSON.stringify(result.body)}`).toBe(status);
        const pointer = [
          'paths',
          route,
          method.toLowerCase(),
          'responses',
          String(status),
          'content',
          'application/json',
          'schema',
        ]
          .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
          .join('/');
        const validate = ajv.compile({ $ref: `openapi#/${pointer}` });
        if (!validate(result.body)) mismatches.push(`${method} ${route} ${status}: ${ajv.errorsText(validate.errors)}`);
        checked.add(`${method.toLowerCase()} ${route} ${status}`);
        return result.body;
      };

      const { token, storeId } = await merchantWithStore(api, 'Schema store');
      const fn = (name: string, body: object) =>
        call(token, 'POST', `/functions/v1/${name}`, `/functions/v1/${name}`, 200, body);
      // The local provider, paid from the new store's welcome credits.
      await fn('generate-blog-cover', {
        title: 'Ten summer looks',
        style: 'minimal',
        colors: ['#0ea5e9'],
        store_id: storeId,
      });
      await fn('generate-blog-autopilot', {
        topic: 'Linen care',
        tone: 'friendly',
        length: 'short',
        language: 'en',
        store_id: storeId,
      });
      await fn('research-social-context', {
        query: 'sustainable sneakers',
        platforms: ['x', 'instagram'],
        store_id: storeId,
      });
      const product = await api.request('POST', `/functions/v1/stores/${storeId}/products`, {
        token,
        body: { name: 'Mug', price: 9.5, status: 'active', inventory_quantity: 10 },
      });
      await fn('social-generate-content', {
        product_id: product.body.product.id,
        platform: 'x',
        tone: 'playful',
        language: 'en',
      });

      // Social: connect a sandbox X account, publish now and later, list, cancel, disconnect.
      await call(token, 'POST', '/functions/v1/social-connect', '/functions/v1/social-connect', 200, {
        platform: 'x',
        store_id: storeId,
        redirect_url: 'http://localhost:5173/settings/social',
      });
      const { auth_url } = await startConnect(api, token, storeId, 'x');
      const opened = await openStart(api, auth_url);
      const consent = await (await fetch(`${api.url}${localPath(opened.location!)}`)).text();
      const account = redirectOf(await callBack(api, linkOf(consent, 'allow'), opened.cookie)).params.account;
      await call(
        token,
        'GET',
        '/functions/v1/social-accounts',
        `/functions/v1/social-accounts?store_id=${storeId}`,
        200,
      );
      const publish = (body: object) =>
        call(token, 'POST', '/functions/v1/social-publish', '/functions/v1/social-publish', 200, body);
      await publish({
        store_id: storeId,
        platforms: ['x'],
        content: { text: 'Our new mug is here', link: 'https://shop.example.com/mug' },
      });
      const later = new Date(Date.now() + 24 * 3600_000).toISOString();
      const scheduled = await publish({
        store_id: storeId,
        platforms: ['x'],
        content: { text: 'Tomorrow' },
        schedule_at: later,
      });
      await call(token, 'GET', '/functions/v1/social-posts', `/functions/v1/social-posts?store_id=${storeId}`, 200);
      const postId = scheduled.results[0].post_id;
      await call(
        token,
        'DELETE',
        '/functions/v1/social-publish/{post_id}',
        `/functions/v1/social-publish/${postId}`,
        200,
      );
      await call(
        token,
        'DELETE',
        '/functions/v1/social-publish/{post_id}',
        `/functions/v1/social-publish/${postId}`,
        409,
      );
      await call(
        token,
        'DELETE',
        '/functions/v1/social-accounts/{account_id}',
        `/functions/v1/social-accounts/${account}`,
        200,
      );

      // Webhooks: the whole management API, a test event, a redelivery, recovery, the notifications.
      const webhooks = '/functions/v1/webhooks';
      const one = `${webhooks}/{webhook_id}`;
      const { webhook } = await call(token, 'POST', `${webhooks}/register`, `${webhooks}/register`, 201, {
        store_id: storeId,
        url: 'http://127.0.0.1:9/hook',
        events: ['order.created'],
      });
      const at = `${webhooks}/${webhook.id}`;
      await call(token, 'GET', webhooks, `${webhooks}?store_id=${storeId}`, 200);
      await call(token, 'GET', one, at, 200);
      await call(token, 'PATCH', one, at, 200, { events: ['order.paid'] });
      await call(token, 'POST', `${one}/rotate-secret`, `${at}/rotate-secret`, 200);
      const { delivery } = await call(token, 'POST', `${one}/test`, `${at}/test`, 201);
      await call(
        token,
        'POST',
        `${one}/deliveries/{delivery_id}/redeliver`,
        `${at}/deliveries/${delivery.id}/redeliver`,
        201,
      );
      await call(token, 'GET', `${one}/deliveries`, `${at}/deliveries`, 200);
      await call(token, 'POST', `${one}/recover`, `${at}/recover`, 200, {
        since: new Date(Date.now() - 3600_000).toISOString(),
      });
      await call(token, 'GET', '/functions/v1/notifications', `/functions/v1/notifications?store_id=${storeId}`, 200);
      await call(token, 'DELETE', one, at, 200);

      // The development mailbox (admin), and an error answer.
      const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
        headers: { apikey: PUBLIC_KEY },
        body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
      });
      await call(admin.body.access_token, 'GET', '/functions/v1/dev-mailbox', '/functions/v1/dev-mailbox', 200);
      await call(token, 'GET', '/functions/v1/dev-mailbox', '/functions/v1/dev-mailbox', 403);
      await call(token, 'GET', '/media/covers/{file}', '/media/covers/3b241101-e2bb-4255-8caf-4136c566a962.png', 404);

      expect(checked.size).toBe(25);
      expect(mismatches).toEqual([]);
    },
  );
});
