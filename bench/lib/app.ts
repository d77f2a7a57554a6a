import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { freePort, startChild, type Child } from './child.js';
import { call, inParallel } from './http.js';
import { productionEnv, type BenchServices } from './services.js';

/** The repository root, from dist/bench/bench/lib. */
export const ROOT = path.resolve(import.meta.dirname, '../../../..');
export const RESULTS_DIR = path.join(ROOT, 'bench/results');
const MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');

export const PUBLIC_KEY = `bench_public_${randomBytes(12).toString('hex')}`;
export const ADMIN = { email: 'bench-admin@example.com', password: `admin-${randomBytes(8).toString('hex')}` };

/** The API's settings for every bench process: production mode, limits out of the way of the load. */
export function appEnv(services: BenchServices): Record<string, string> {
  return {
    ...productionEnv(services, PUBLIC_KEY),
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_PER_MINUTE: '100000000',
    AI_PROVIDER: 'local',
    AI_HOURLY_LIMITS: 'research-social-context:999999',
  };
}

/** Sends an IPC message to a profiled API and waits for its answer. */
export function tell(child: Child, message: string): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${child.name} did not answer ${message}`)), 60_000);
    child.process.once('message', (answer) => {
      clearTimeout(timer);
      resolve(answer as Record<string, string>);
    });
    child.process.send(message);
  });
}

/** Starts the built API in a role (`api`: HTTP only; `worker`: relay and queues, no HTTP). */
export async function startApi(
  env: Record<string, string>,
  role: 'api' | 'worker',
  options: { name?: string; profileDir?: string; main?: string } = {},
): Promise<Child> {
  const name = options.name ?? `app-${role}`;
  const main = options.main ?? MAIN;
  const logDir = path.join(RESULTS_DIR, 'logs');
  const profiled = options.profileDir !== undefined;
  const script = profiled ? path.join(ROOT, 'dist/bench/bench/profiled-main.js') : main;
  const profiling: Record<string, string> = profiled
    ? { BENCH_APP_MAIN: pathToFileURL(main).href, BENCH_PROFILE_DIR: options.profileDir! }
    : {};
  if (role === 'worker') {
    // Its readiness is its "worker running" line, logged at info: a quieter BENCH_LOG_LEVEL is the API's only.
    const quiet = ['warn', 'error', 'fatal', 'silent'].includes(env.LOG_LEVEL ?? '');
    const workerEnv = { ...env, ...profiling, APP_ROLE: 'worker', ...(quiet ? { LOG_LEVEL: 'info' } : {}) };
    return startChild({ name, script, env: workerEnv, logDir, readyLine: /worker running/, ipc: profiled });
  }
  const port = await freePort();
  return startChild({
    name,
    script,
    env: { ...env, ...profiling, APP_ROLE: 'api', PORT: String(port) },
    logDir,
    port,
    readyPath: '/health/ready',
    ipc: profiled,
  });
}

/**
 * How a request of `merchantToken` logs in and binds, as the API does: the request login, and the
 * merchant's session with the proof made from the installation key (read here through the start-up login).
 */
export async function requestBinding(
  env: Record<string, string>,
  merchantToken: string,
): Promise<{ databaseUrl: string; sessionId: string; proof: string }> {
  const admin = new pg.Client({ connectionString: env.DATABASE_URL });
  await admin.connect();
  const key: Buffer = (await admin.query('SELECT binding_key FROM storefront_private.installation')).rows[0].binding_key;
  await admin.end();
  const sessionId = JSON.parse(Buffer.from(merchantToken.split('.')[1], 'base64url').toString('utf8')).session_id as string;
  const requestUrl = new URL(env.DATABASE_URL);
  requestUrl.username = 'storefront_app';
  if (requestUrl.password) {
    requestUrl.password = createHmac('sha256', decodeURIComponent(requestUrl.password))
      .update('storefront database login storefront_app')
      .digest('hex');
  }
  return { databaseUrl: requestUrl.toString(), sessionId, proof: createHmac('sha256', key).update(`session:${sessionId}`).digest('hex') };
}

/** The baseline server, bound as the API binds (`requestBinding`). */
export async function startBaseline(env: Record<string, string>, merchantToken: string): Promise<Child> {
  const port = await freePort();
  const binding = await requestBinding(env, merchantToken);
  return startChild({
    name: 'baseline',
    script: path.join(ROOT, 'dist/bench/bench/baseline-server.js'),
    env: {
      DATABASE_URL: binding.databaseUrl,
      PORT: String(port),
      BASELINE_SESSION_ID: binding.sessionId,
      BASELINE_PROOF: binding.proof,
    },
    logDir: path.join(RESULTS_DIR, 'logs'),
    port,
    readyPath: '/health',
  });
}

export interface Merchant {
  token: string;
  userId: string;
  storeId: string;
}

/** A merchant signed up through /auth/v1 with one store. */
export async function merchant(url: string, label: string): Promise<Merchant> {
  const session = await call(`POST`, `${url}/auth/v1/signup`, {
    headers: { apikey: PUBLIC_KEY },
    body: { email: `${label}-${randomBytes(4).toString('hex')}@example.com`, password: 'correct horse battery staple' },
  });
  const token = session.body.access_token as string;
  const store = await call('POST', `${url}/functions/v1/stores`, { token, body: { name: `Bench ${label}` } });
  return { token, userId: session.body.user.id, storeId: store.body.store.id };
}

export async function adminToken(url: string): Promise<string> {
  const session = await call('POST', `${url}/auth/v1/token?grant_type=password`, { headers: { apikey: PUBLIC_KEY }, body: ADMIN });
  return session.body.access_token as string;
}

/** `count` active products with stock for the whole run. */
export async function seedProducts(url: string, owner: Merchant, count: number): Promise<string[]> {
  const created = await inParallel(Array.from({ length: count }), 4, (_, index) =>
    call('POST', `${url}/functions/v1/stores/${owner.storeId}/products`, {
      token: owner.token,
      body: {
        name: `Bench product ${index + 1}`,
        description: `A product of the benchmark's catalog, number ${index + 1}.`,
        price: 10 + index,
        category: index % 2 ? 'apparel' : 'home',
        seo_keywords: ['bench', 'catalog', `item-${index + 1}`],
        status: 'active',
        inventory_quantity: 100_000_000,
      },
    }),
  );
  return created.map((result) => result.body.product.id as string);
}

/**
 * The peer (peer-server.ts): the product list as a typical NestJS app writes it, on the bench database
 * as its superuser (no row-level security applies), verifying the API's tokens with its JWT_SECRET.
 */
export async function startPeer(env: Record<string, string>): Promise<Child> {
  const port = await freePort();
  return startChild({
    name: 'peer',
    script: path.join(ROOT, 'dist/bench/bench/peer-server.js'),
    env: {
      DATABASE_URL: env.DATABASE_URL,
      JWT_SECRET: env.JWT_SECRET,
      ...(env.JWT_AUDIENCE ? { JWT_AUDIENCE: env.JWT_AUDIENCE } : {}),
      PORT: String(port),
    },
    logDir: path.join(RESULTS_DIR, 'logs'),
    port,
    readyPath: '/health',
  });
}
