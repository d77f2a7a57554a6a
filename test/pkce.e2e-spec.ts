import { createHash, randomBytes } from 'node:crypto';
import { createServerClient } from '@supabase/ssr';
import { createClient, type SupabaseClient, type WebSocketLikeConstructor } from '@supabase/supabase-js';
import { DataSource } from 'typeorm';
import ws from 'ws';
import { FakeOidcServer } from './fakes/oidc-server.js';
import { codeIn, FakeSmtpServer, verifyLinkIn, type ReceivedMail } from './fakes/smtp-server.js';
import { PUBLIC_KEY, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';

const PASSWORD = 'correct horse battery';
const WELCOME = 'http://localhost:5173/welcome?next=%2Fdashboard';
const CLIENT_ID = 'fake-client-id.apps.googleusercontent.com';
const CLIENT_SECRET = 'fake-client-secret-0123456789';
const transport = ws as unknown as WebSocketLikeConstructor;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const newVerifier = () => randomBytes(48).toString('base64url');

/**
 * PKCE (supabase-js `flowType: 'pkce'`, the default of @supabase/ssr): e-mailed links and Google's
 * callback return `redirect_to?code=`, and POST /auth/v1/token?grant_type=pkce exchanges the code
 * with its verifier, once, within 5 minutes. Real SMTP (a fake server of the test's own), a fake
 * Google, the app's own database (its mail relay sends every pending e-mail of the database).
 */
describe('PKCE sign-in flows', () => {
  const smtp = new FakeSmtpServer();
  let google: FakeOidcServer;
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const auth = (method: string, path: string, body?: unknown, token?: string) =>
    api.request(method, `/auth/v1${path}`, { headers: { apikey: PUBLIC_KEY }, body, token });
  const exchange = (authCode: string, verifier: string) =>
    auth('POST', '/token?grant_type=pkce', { auth_code: authCode, code_verifier: verifier });

  const pkceClient = (): SupabaseClient =>
    createClient(api.url, PUBLIC_KEY, {
      auth: { flowType: 'pkce', persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport },
    });

  /** Where a link sends the browser (links name PUBLIC_BASE_URL; the test app's port stands in). */
  const follow = async (link: string): Promise<URL> => {
    const url = new URL(link);
    const answer = await fetch(`${api.url}${url.pathname}${url.search}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get('location')!);
  };
  /** The auth code of a PKCE redirect: back at redirect_to (its own query kept), `?code=`, nothing in the fragment. */
  const codeAt = (location: URL): string => {
    expect(`${location.origin}${location.pathname}`).toBe('http://localhost:5173/welcome');
    expect(location.searchParams.get('next')).toBe('/dashboard');
    expect(location.hash).toBe('');
    const code = location.searchParams.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return code!;
  };
  const lastMail = async (address: string, count = 1): Promise<ReceivedMail> => {
    const mails = await smtp.waitFor(address, count);
    return mails[count - 1];
  };

  /** A confirmed account (sign-up, then its confirmation code). */
  const confirmedAccount = async (label: string): Promise<string> => {
    const email = uniqueEmail(label);
    expect((await auth('POST', '/signup', { email, password: PASSWORD })).status).toBe(200);
    const token = codeIn(await lastMail(email));
    expect((await auth('POST', '/verify', { type: 'signup', email, token })).status).toBe(200);
    return email;
  };

  /** A recovery flow started with this challenge: the auth code its link returns. */
  const recoveryCode = async (email: string, challenge: string, method: string, mails: number): Promise<string> => {
    const asked = await auth('POST', `/recover?redirect_to=${encodeURIComponent(WELCOME)}`, {
      email,
      code_challenge: challenge,
      code_challenge_method: method,
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    return codeAt(await follow(verifyLinkIn(await lastMail(email, mails))));
  };

  beforeAll(async () => {
    await smtp.start();
    google = await FakeOidcServer.start({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    database = await createPrivateDatabase('pkce');
    api = await startApp({
      DATABASE_URL: database.url,
      AUTH_CONFIRM_EMAIL: 'true',
      MAIL_RELAY: 'true',
      SMTP_URL: smtp.url,
      MAIL_POLL_INTERVAL_MS: '100',
      AUTH_MAIL_LIMIT_PER_IP: '1000',
      AUTH_MAIL_LIMIT_PER_EMAIL: '1000',
      AUTH_VERIFY_LIMIT_PER_IP: '1000',
      ALLOWED_REDIRECT_ORIGINS: 'http://localhost:5173',
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_ISSUER: google.issuer,
      GOOGLE_AUTHORIZATION_URL: google.authorizationUrl,
      GOOGLE_TOKEN_URL: google.tokenUrl,
      GOOGLE_JWKS_URL: google.jwksUrl,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}pkce:`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await smtp.stop();
    await google?.close();
    await database?.drop();
  });

  it('sign-up: the confirmation link returns ?code=, exchangeCodeForSession signs in (supabase-js pkce)', async () => {
    const supabase = pkceClient();
    const email = uniqueEmail('pkce-signup');
    const signedUp = await supabase.auth.signUp({ email, password: PASSWORD, options: { emailRedirectTo: WELCOME } });
    expect(signedUp.error).toBeNull();
    expect(signedUp.data.session).toBeNull();

    const code = codeAt(await follow(verifyLinkIn(await lastMail(email))));
    const { data, error } = await supabase.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session?.expires_in).toBe(3600);
    expect(data.user?.email).toBe(email);
    expect(data.user?.email_confirmed_at).toEqual(expect.any(String));
    const current = await supabase.auth.getUser();
    expect(current.data.user?.id).toBe(signedUp.data.user?.id);
    // The link confirmed the address: the password signs in now.
    expect((await auth('POST', '/token?grant_type=password', { email, password: PASSWORD })).status).toBe(200);
  });

  it('recovery: ?code= gives a session that may set a new password without the old one', async () => {
    const email = await confirmedAccount('pkce-recover');
    const supabase = pkceClient();
    expect((await supabase.auth.resetPasswordForEmail(email, { redirectTo: WELCOME })).error).toBeNull();
    const code = codeAt(await follow(verifyLinkIn(await lastMail(email, 2))));
    const { data, error } = await supabase.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    // The client's own record of the flow (its stored verifier's suffix), as the server's redirect_type says.
    expect((data as { redirectType?: string }).redirectType).toBe('recovery');
    expect((await supabase.auth.updateUser({ password: 'a brand new horse' })).error).toBeNull();
    const signIn = await auth('POST', '/token?grant_type=password', { email, password: 'a brand new horse' });
    expect(signIn.status).toBe(200);
    expect((await auth('POST', '/token?grant_type=password', { email, password: PASSWORD })).status).toBe(400);
  });

  it('e-mail change: the new address link returns ?code=, its session is the changed account', async () => {
    const email = await confirmedAccount('pkce-change');
    // supabase-js (2.109) drops the stored verifier when updateUser saves the session it answers: a
    // storage of the test's own keeps what it wrote, as a browser's other tab would.
    const stored = new Map<string, string>();
    const written = new Map<string, string>();
    const supabase = createClient(api.url, PUBLIC_KEY, {
      auth: {
        flowType: 'pkce',
        autoRefreshToken: false,
        detectSessionInUrl: false,
        storage: {
          getItem: (key: string) => stored.get(key) ?? null,
          setItem: (key: string, value: string) => void (stored.set(key, value), written.set(key, value)),
          removeItem: (key: string) => void stored.delete(key),
        },
      },
      realtime: { transport },
    });
    expect((await supabase.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const newEmail = uniqueEmail('pkce-changed');
    const asked = await supabase.auth.updateUser({ email: newEmail }, { emailRedirectTo: WELCOME });
    expect(asked.error).toBeNull();
    expect(asked.data.user?.new_email).toBe(newEmail);

    const code = codeAt(await follow(verifyLinkIn(await lastMail(newEmail))));
    const verifierKey = [...written.keys()].find((key) => key.endsWith('-code-verifier'))!;
    stored.set(verifierKey, written.get(verifierKey)!);
    const { data, error } = await supabase.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user?.email).toBe(newEmail);
    expect((await lastMail(email, 2)).template).toBe('email_changed');
  });

  it('magic link (otp): ?code= and exchangeCodeForSession; POST /token answers redirect_type magiclink', async () => {
    const email = await confirmedAccount('pkce-otp');
    const supabase = pkceClient();
    expect((await supabase.auth.signInWithOtp({ email, options: { emailRedirectTo: WELCOME } })).error).toBeNull();
    const mail = await lastMail(email, 2);
    expect(mail.template).toBe('magic_link');
    const code = codeAt(await follow(verifyLinkIn(mail)));
    const { data, error } = await supabase.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);

    const verifier = newVerifier();
    const otp = { email, code_challenge: s256(verifier), code_challenge_method: 's256' };
    expect((await auth('POST', `/otp?redirect_to=${encodeURIComponent(WELCOME)}`, otp)).status).toBe(200);
    const raw = await exchange(codeAt(await follow(verifyLinkIn(await lastMail(email, 3)))), verifier);
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      redirect_type: 'magiclink',
      user: { email },
    });
  });

  it('Google: the callback returns ?code= when authorize had a challenge; the code signs in', async () => {
    const supabase = pkceClient();
    const { data } = await supabase.auth.signInWithOAuth({
      provider: 'google',
      options: { redirectTo: WELCOME, skipBrowserRedirect: true },
    });
    const started = new URL(data.url!);
    expect(started.searchParams.get('code_challenge')).toBeTruthy();
    const consent = await fetch(`${api.url}${started.pathname}${started.search}`, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const page = new URL(consent.headers.get('location')!);
    const email = uniqueEmail('pkce-google');
    const googleCode = google.issueCode({
      codeChallenge: page.searchParams.get('code_challenge')!,
      nonce: page.searchParams.get('nonce')!,
      redirectUri: page.searchParams.get('redirect_uri')!,
      email,
      name: 'Grace Google',
    });
    const query = new URLSearchParams({ code: googleCode, state: page.searchParams.get('state')!, iss: google.issuer });
    const back = await api.request('GET', `/auth/v1/callback?${query}`);
    expect(back.status).toBe(302);
    const code = codeAt(new URL(back.headers.get('location')!));
    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user).toMatchObject({ email, app_metadata: { provider: 'google' } });
  });

  it('Google with PKCE: a declined consent comes back in the query (a server sees it), nothing signed in', async () => {
    const challenge = s256(newVerifier());
    const authorize = new URLSearchParams({
      provider: 'google',
      redirect_to: WELCOME,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const started = await api.request('GET', `/auth/v1/authorize?${authorize}`);
    expect(started.status).toBe(302);
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const query = new URLSearchParams({ error: 'access_denied', error_description: 'The user declined', state });
    const back = await api.request('GET', `/auth/v1/callback?${query}`);
    expect(back.status).toBe(302);
    const location = new URL(back.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toBe('The user declined');
    expect(location.searchParams.has('code')).toBe(false);
    expect(location.hash).toBe('');
  });

  it('@supabase/ssr: the server exchanges the code into cookies, a later server client reads the user', async () => {
    const jar = new Map<string, string>();
    const serverClient = () =>
      createServerClient(api.url, PUBLIC_KEY, {
        cookies: {
          getAll: () => [...jar].map(([name, value]) => ({ name, value })),
          setAll: (cookies) => {
            for (const { name, value, options } of cookies) {
              if (value === '' || options?.maxAge === 0) jar.delete(name);
              else jar.set(name, value);
            }
          },
        },
        realtime: { transport },
      });
    const email = await confirmedAccount('pkce-ssr');
    // A server action starts the sign-in: the verifier goes into a cookie.
    const started = await serverClient().auth.signInWithOtp({ email, options: { emailRedirectTo: WELCOME } });
    expect(started.error).toBeNull();
    expect([...jar.keys()].some((name) => name.endsWith('-code-verifier'))).toBe(true);
    const code = codeAt(await follow(verifyLinkIn(await lastMail(email, 2))));
    // The callback route of the app: a server client of the same cookies exchanges the code.
    const exchanged = await serverClient().auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect([...jar.keys()].some((name) => name.endsWith('-auth-token') || name.includes('-auth-token.'))).toBe(true);
    // A later request: a new server client built from the cookies alone.
    const later = await serverClient().auth.getUser();
    expect(later.error).toBeNull();
    expect(later.data.user?.email).toBe(email);
  });

  it('a code works once, with its verifier only; a wrong one does not spend it; parallel: one wins', async () => {
    const email = await confirmedAccount('pkce-once');
    const verifier = newVerifier();
    const code = await recoveryCode(email, s256(verifier), 's256', 2);
    const wrong = await exchange(code, newVerifier());
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ code: 403, error_code: 'bad_code_verifier' });
    const [first, second] = await Promise.all([exchange(code, verifier), exchange(code, verifier)]);
    expect([first.status, second.status].sort()).toEqual([200, 404]);
    const session = first.status === 200 ? first.body : second.body;
    expect(session).toMatchObject({ redirect_type: 'recovery', user: { email } });
    const again = await exchange(code, verifier);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({
      code: 404,
      error_code: 'flow_state_not_found',
      msg: 'invalid flow state, no valid flow state found',
    });
    expect((await exchange('not-a-code-at-all', verifier)).status).toBe(404);
  });

  it('plain and s256 (either case): each checked its own way', async () => {
    const email = await confirmedAccount('pkce-methods');
    const plain = newVerifier();
    const plainCode = await recoveryCode(email, plain, 'plain', 2);
    // A plain challenge is the verifier itself, not its hash.
    expect((await exchange(plainCode, s256(plain) + 'x'.repeat(10))).status).toBe(403);
    expect((await exchange(plainCode, plain)).status).toBe(200);

    const hashed = newVerifier();
    const hashedCode = await recoveryCode(email, s256(hashed), 'S256', 3);
    // Presenting the challenge itself as a verifier (as if it were plain) fails.
    expect((await exchange(hashedCode, s256(hashed) + 'AAAA')).status).toBe(403);
    expect((await exchange(hashedCode, s256(hashed))).status).toBe(403);
    expect((await exchange(hashedCode, hashed)).status).toBe(200);
  });

  it("a code of one flow is not usable with another flow's verifier", async () => {
    const emailA = await confirmedAccount('pkce-flow-a');
    const emailB = await confirmedAccount('pkce-flow-b');
    const verifierA = newVerifier();
    const verifierB = newVerifier();
    const codeA = await recoveryCode(emailA, s256(verifierA), 's256', 2);
    const codeB = await recoveryCode(emailB, s256(verifierB), 's256', 2);
    expect((await exchange(codeA, verifierB)).status).toBe(403);
    expect((await exchange(codeB, verifierA)).status).toBe(403);
    expect((await exchange(codeA, verifierA)).body.user.email).toBe(emailA);
    expect((await exchange(codeB, verifierB)).body.user.email).toBe(emailB);
  });

  it('a code lives 5 minutes: past that, 400 flow_state_expired', async () => {
    const email = await confirmedAccount('pkce-expiry');
    const verifier = newVerifier();
    const code = await recoveryCode(email, s256(verifier), 's256', 2);
    const hash = createHash('sha256').update(code).digest();
    const [row] = await db().query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl, user_id FROM auth_flow_states
        WHERE auth_code_hash = $1`,
      [hash],
    );
    expect(row.ttl).toBe(300);
    // Stored as its hash only: no column holds the code.
    const anywhere = `SELECT count(*)::int AS n FROM auth_flow_states f WHERE f::text LIKE '%' || $1 || '%'`;
    const [plainRows] = await db().query(anywhere, [code]);
    expect(plainRows.n).toBe(0);
    await db().query(
      `UPDATE auth_flow_states
          SET created_at = created_at - interval '301 seconds', expires_at = expires_at - interval '301 seconds'
        WHERE auth_code_hash = $1`,
      [hash],
    );
    const late = await exchange(code, verifier);
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ error_code: 'flow_state_expired' });
  });

  it('bad challenges answer 400 validation_failed on every route that takes one', async () => {
    const email = await confirmedAccount('pkce-bad');
    const session = (await auth('POST', '/token?grant_type=password', { email, password: PASSWORD })).body;
    const good = s256(newVerifier());
    const bad: Record<string, string>[] = [
      { code_challenge: good, code_challenge_method: 'S512' },
      { code_challenge: 'short', code_challenge_method: 's256' },
      { code_challenge: good },
      { code_challenge_method: 's256' },
      { code_challenge: `${good}!`, code_challenge_method: 'plain' },
    ];
    const authorize = `/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(WELCOME)}`;
    for (const fields of bad) {
      const answers = [
        await auth('POST', '/signup', { email: uniqueEmail('pkce-bad-signup'), password: PASSWORD, ...fields }),
        await auth('POST', '/recover', { email, ...fields }),
        await auth('POST', '/resend', { type: 'signup', email, ...fields }),
        await auth('POST', '/otp', { email, ...fields }),
        await auth('PUT', '/user', { email: uniqueEmail('pkce-bad-change'), ...fields }, session.access_token),
        await api.request('GET', `${authorize}&${new URLSearchParams(fields)}`),
      ];
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(fields)).toBe(400);
        expect(answer.body.error_code).toBe('validation_failed');
      }
    }
    expect((await auth('POST', '/token?grant_type=pkce', { auth_code: 'x', code_verifier: 'short' })).status).toBe(400);
  });

  it('without a challenge the link still signs in with the session in the fragment (implicit flow)', async () => {
    const email = await confirmedAccount('pkce-implicit');
    expect((await auth('POST', `/recover?redirect_to=${encodeURIComponent(WELCOME)}`, { email })).status).toBe(200);
    const location = await follow(verifyLinkIn(await lastMail(email, 2)));
    expect(location.searchParams.has('code')).toBe(false);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('access_token')).toBeTruthy();
    expect(fragment.get('type')).toBe('recovery');
  });

  it('requests have no rights on the flow states (row-level security, no grant)', async () => {
    const email = await confirmedAccount('pkce-rls');
    const session = (await auth('POST', '/token?grant_type=password', { email, password: PASSWORD })).body;
    await recoveryCode(email, s256(newVerifier()), 's256', 2);
    await asRequest(api, session.access_token, async (q) => {
      await expect(q('SELECT * FROM auth_flow_states')).rejects.toThrow(/permission denied/);
    });
    const user = session.user.id;
    await asRequest(api, session.access_token, async (q) => {
      await expect(
        q(`SELECT auth_flow_issue_code(NULL, $1, 'google', repeat('a', 43), 'plain', '\\x00', 300, 'forged')`, [user]),
      ).rejects.toThrow(/invalid ticket/);
    });
  });
});
