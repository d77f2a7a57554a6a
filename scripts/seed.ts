/**
 * Seeds a running API with a demo merchant and store, through the public HTTP API only.
 * Usage: start the API (`npm start`), then in another terminal `npm run seed`.
 * Env (or `.env`): SEED_API_URL (default http://localhost:3000), PUBLIC_API_KEY (default: the development key).
 * Safe to run again: it signs the merchant in and reuses its store.
 */
import { DEVELOPMENT_DEFAULTS } from '@app/auth';
import { loadEnvFile } from '../apps/api/src/env-file.js';

loadEnvFile();

const API_URL = (process.env.SEED_API_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const PUBLIC_API_KEY = process.env.PUBLIC_API_KEY || DEVELOPMENT_DEFAULTS.PUBLIC_API_KEY;
const DEMO = {
  email: 'demo@storefront.local',
  password: 'demo-password-123',
  fullName: 'Demo Merchant',
  storeName: 'Demo Store',
};

interface Session {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  user: { id: string; email: string; role: string };
}
interface Store {
  id: string;
  owner_id: string;
  name: string;
}

function fail(message: string): never {
  console.error(`seed: ${message}`);
  process.exit(1);
}

async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {
    apikey: PUBLIC_API_KEY,
    authorization: `Bearer ${token ?? PUBLIC_API_KEY}`,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${API_URL}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    fail(
      `the API is not reachable at ${API_URL} (${cause}). Start it ` +
        `first with "npm start" in another terminal, or set SEED_API_URL.`,
    );
  }
  const text = await response.text();
  try {
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  } catch {
    fail(`${method} ${path} answered ${response.status} with a body that is not JSON; is ${API_URL} this API?`);
  }
}

const describe = (result: { status: number; body: unknown }) => `${result.status} ${JSON.stringify(result.body)}`;

// Sign up the demo merchant, or sign it in when it already exists.
let session: Session;
const signUp = await call<Session & { error_code?: string }>('POST', '/auth/v1/signup', {
  email: DEMO.email,
  password: DEMO.password,
  data: { full_name: DEMO.fullName },
});
if (signUp.status === 200) {
  session = signUp.body;
  console.log(`Signed up ${DEMO.email}`);
} else if (signUp.body?.error_code === 'user_already_exists') {
  const signIn = await call<Session>('POST', '/auth/v1/token?grant_type=password', {
    email: DEMO.email,
    password: DEMO.password,
  });
  if (signIn.status !== 200) fail(`${DEMO.email} exists but signing in failed: ${describe(signIn)}`);
  session = signIn.body;
  console.log(`Signed in ${DEMO.email} (it already existed)`);
} else {
  fail(`sign-up failed: ${describe(signUp)}`);
}
const token = session.access_token;

// Reuse the merchant's own store, else create the demo store.
const listed = await call<{ data: Store[] }>('GET', '/functions/v1/stores?limit=100', undefined, token);
if (listed.status !== 200) fail(`listing stores failed: ${describe(listed)}`);
const owned = listed.body.data.filter((store) => store.owner_id === session.user.id);
let store = owned.find((candidate) => candidate.name === DEMO.storeName) ?? owned[0];
if (store) {
  console.log(`Using the existing store "${store.name}"`);
} else {
  const created = await call<{ store: Store }>('POST', '/functions/v1/stores', { name: DEMO.storeName }, token);
  if (created.status !== 201) fail(`creating the store failed: ${describe(created)}`);
  store = created.body.store;
  console.log(`Created the store "${store.name}"`);
}

const defaultKey = PUBLIC_API_KEY === DEVELOPMENT_DEFAULTS.PUBLIC_API_KEY;
console.log(`
Demo merchant  ${DEMO.email} / ${DEMO.password} (role ${session.user.role})
Store id       ${store.id}
Access token   valid ${session.expires_in} s (run "npm run seed" again for a new one):

export ACCESS_TOKEN=${token}

Swagger: open ${API_URL}/docs, press "Authorize", paste the token into "bearer" (without the word Bearer),
then try GET /functions/v1/stores/{store_id} with the store id above. /auth/v1 routes take the public key
in the "apikey" box (${defaultKey ? `the development default: ${PUBLIC_API_KEY}` : 'your PUBLIC_API_KEY'}).

curl: curl -H "Authorization: Bearer $ACCESS_TOKEN" ${API_URL}/functions/v1/stores/${store.id}

The store starts empty: add products with POST /functions/v1/stores/{store_id}/products (Swagger's catalog section).`);
