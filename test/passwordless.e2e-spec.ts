import { createClient, type SupabaseClient, type WebSocketLikeConstructor } from '@supabase/supabase-js';
import { DataSource } from 'typeorm';
import ws from 'ws';
import { codeIn, FakeSmtpServer, verifyLinkIn, type ReceivedMail } from './fakes/smtp-server.js';
import { PUBLIC_KEY, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';

const PASSWORD = 'correct horse battery';
const WELCOME = 'http://localhost:5173/welcome';
const transport = ws as unknown as WebSocketLikeConstructor;

/**
 * Passwordless sign-in (POST /auth/v1/otp, supabase-js `signInWithOtp`): a magic link and a 6-digit
 * code, verified as `email` or `magiclink`; new addresses get an account as sign-up makes it. Real
 * SMTP to a fake server of the test's own, on a database of its own (its mail relay sends every
 * pending e-mail of the database), e-mail confirmation on.
 */
describe('passwordless sign-in', () => {
  const smtp = new FakeSmtpServer();
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const auth = (method: string, path: string, body?: unknown, token?: string) =>
    api.request(method, `/auth/v1${path}`, { headers: { apikey: PUBLIC_KEY }, body, token });
  const client = (): SupabaseClient =>
    createClient(api.url, PUBLIC_KEY, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport },
    });
  const lastMail = async (address: string, count = 1): Promise<ReceivedMail> => {
    const mails = await smtp.waitFor(address, count);
    return mails[count - 1];
  };
  /** What was written for `address`: its account and e-mails (in the request's transaction: final once it answered). */
  const traces = async (address: string) => {
    const [row] = await db().query(
      `SELECT (SELECT count(*)::int FROM users WHERE lower(email) = lower($1)) AS accounts,
              (SELECT count(*)::int FROM mail_outbox WHERE lower(recipient) = lower($1)) AS mails`,
      [address],
    );
    return row as { accounts: number; mails: number };
  };
  /** A signed-in account made by signInWithOtp and its code. */
  const otpAccount = async (label: string, data?: Record<string, unknown>) => {
    const email = uniqueEmail(label);
    const supabase = client();
    expect((await supabase.auth.signInWithOtp({ email, options: { data } })).error).toBeNull();
    const token = codeIn(await lastMail(email));
    const { data: verified, error } = await supabase.auth.verifyOtp({ email, token, type: 'email' });
    expect(error).toBeNull();
    return { email, supabase, session: verified.session!, user: verified.user! };
  };

  beforeAll(async () => {
    await smtp.start();
    database = await createPrivateDatabase('passwordless');
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
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}passwordless:`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await smtp.stop();
    await database?.drop();
  });

  it('signInWithOtp makes a merchant of a new address; verifyOtp type email signs in, once', async () => {
    const email = uniqueEmail('otp-new');
    const supabase = client();
    const asked = await supabase.auth.signInWithOtp({ email });
    expect(asked.error).toBeNull();
    expect(asked.data).toEqual({ user: null, session: null });
    const mail = await lastMail(email);
    expect(mail.template).toBe('magic_link');
    expect(mail.subject).toBe('Your sign-in link');
    const code = codeIn(mail);
    expect(new URL(verifyLinkIn(mail)).searchParams.get('type')).toBe('magiclink');

    const { data, error } = await supabase.auth.verifyOtp({ email, token: code, type: 'email' });
    expect(error).toBeNull();
    expect(data.session?.expires_in).toBe(3600);
    expect(data.user).toMatchObject({ email, app_metadata: { role: 'merchant', provider: 'email' } });
    expect(data.user?.email_confirmed_at).toEqual(expect.any(String));
    expect((await supabase.auth.getUser()).data.user?.id).toBe(data.user?.id);
    // A merchant indeed: it may create a store.
    const token = data.session!.access_token;
    const store = await api.request('POST', '/functions/v1/stores', { token, body: { name: 'Otp shop' } });
    expect(store.status).toBe(201);

    const again = await client().auth.verifyOtp({ email, token: code, type: 'email' });
    expect(again.error?.status).toBe(403);
    expect(again.error?.code).toBe('otp_expired');
  });

  it('the magic link (GET /verify?type=magiclink) signs the browser in, once', async () => {
    const { email } = await otpAccount('otp-link');
    expect((await auth('POST', `/otp?redirect_to=${encodeURIComponent(WELCOME)}`, { email })).status).toBe(200);
    const link = new URL(verifyLinkIn(await lastMail(email, 2)));
    const open = () => fetch(`${api.url}${link.pathname}${link.search}`, { redirect: 'manual' });
    const first = await open();
    expect(first.status).toBe(302);
    const location = new URL(first.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(WELCOME);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('type')).toBe('magiclink');
    const user = await auth('GET', '/user', undefined, fragment.get('access_token')!);
    expect(user.body.email).toBe(email);
    const second = new URL((await open()).headers.get('location')!);
    expect(new URLSearchParams(second.hash.slice(1)).get('error_code')).toBe('otp_expired');
  });

  it('POST /verify takes a magic link token as type magiclink, and a sign-up code as type email', async () => {
    const { email } = await otpAccount('otp-hash');
    expect((await auth('POST', '/otp', { email })).status).toBe(200);
    const token = new URL(verifyLinkIn(await lastMail(email, 2))).searchParams.get('token');
    const verified = await auth('POST', '/verify', { type: 'magiclink', token_hash: token });
    expect(verified.status).toBe(200);
    expect(verified.body.user.email).toBe(email);

    const signedUp = uniqueEmail('otp-signup-code');
    expect((await auth('POST', '/signup', { email: signedUp, password: PASSWORD })).status).toBe(200);
    const signUpCode = codeIn(await lastMail(signedUp));
    const confirmed = await client().auth.verifyOtp({ email: signedUp, token: signUpCode, type: 'email' });
    expect(confirmed.error).toBeNull();
    expect(confirmed.data.user?.email_confirmed_at).toEqual(expect.any(String));
  });

  it('create_user false: an unknown address gets nothing, a known one its link; the answers are the same', async () => {
    const { email: known } = await otpAccount('otp-known');
    const unknown = uniqueEmail('otp-unknown');
    const before = await traces(known);
    const answers = [
      await auth('POST', '/otp', { email: known, create_user: false }),
      await auth('POST', '/otp', { email: unknown, create_user: false }),
      await auth('POST', '/otp', { email: known, create_user: true }),
      await auth('POST', '/otp', { email: uniqueEmail('otp-unknown-created'), create_user: true }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({});
      expect(answer.headers.get('content-type')).toBe(answers[0].headers.get('content-type'));
    }
    expect(await traces(unknown)).toEqual({ accounts: 0, mails: 0 });
    expect(await traces(known)).toEqual({ accounts: 1, mails: before.mails + 2 });
    expect((await lastMail(known, before.mails + 1)).template).toBe('magic_link');

    // supabase-js's shouldCreateUser: false says nothing either.
    const quiet = await client().auth.signInWithOtp({ email: unknown, options: { shouldCreateUser: false } });
    expect(quiet.error).toBeNull();
    expect(await traces(unknown)).toEqual({ accounts: 0, mails: 0 });
  });

  it('create_user false mails no never-confirmed account; create_user true resets it (password cleared)', async () => {
    const email = uniqueEmail('otp-squatted');
    // Someone else signs the address up with a password of theirs and never confirms it.
    expect((await auth('POST', '/signup', { email, password: 'the squatters password' })).status).toBe(200);
    await lastMail(email);
    expect((await auth('POST', '/otp', { email, create_user: false })).status).toBe(200);
    expect((await traces(email)).mails).toBe(1);

    const supabase = client();
    expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
    const verified = await supabase.auth.verifyOtp({ email, token: codeIn(await lastMail(email, 2)), type: 'email' });
    expect(verified.error).toBeNull();
    const squatter = await auth('POST', '/token?grant_type=password', { email, password: 'the squatters password' });
    expect(squatter.status).toBe(400);
    expect(squatter.body.error_code).toBe('invalid_credentials');
  });

  it('data makes a customer of a store, as sign-up does; the other store does not see it', async () => {
    const merchantA = await otpAccount('otp-merchant-a');
    const merchantB = await otpAccount('otp-merchant-b');
    const createStore = async (token: string, name: string) =>
      (await api.request('POST', '/functions/v1/stores', { token, body: { name } })).body.store.id as string;
    const storeA = await createStore(merchantA.session.access_token, 'Store A');
    const storeB = await createStore(merchantB.session.access_token, 'Store B');

    const data = { role: 'customer', store_id: storeA, full_name: 'Cleo Customer' };
    const customer = await otpAccount('otp-customer', data);
    expect(customer.user).toMatchObject({
      app_metadata: { role: 'customer', store_id: storeA },
      user_metadata: { full_name: 'Cleo Customer' },
    });
    const listed = async (token: string, storeId: string) =>
      (await api.request('GET', `/functions/v1/stores/${storeId}/customers`, { token })).body.data.map(
        (row: { email: string }) => row.email,
      );
    expect(await listed(merchantA.session.access_token, storeA)).toContain(customer.email);
    expect(await listed(merchantB.session.access_token, storeB)).not.toContain(customer.email);

    const unknownStore = await auth('POST', '/otp', {
      email: uniqueEmail('otp-no-store'),
      data: { role: 'customer', store_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknownStore.status).toBe(400);
    expect(unknownStore.body.error_code).toBe('validation_failed');
    const missingStore = await auth('POST', '/otp', { email: uniqueEmail('otp-no-store'), data: { role: 'customer' } });
    expect(missingStore.status).toBe(400);
    expect((await auth('POST', '/otp', { email: 'not an address' })).status).toBe(400);
  });
});

/** The e-mail and code limits of the account routes hold for POST /otp and the new verify types. */
describe('passwordless limits', () => {
  let perAddress: TestApp;
  let perClient: TestApp;
  const post = (api: TestApp, path: string, body: unknown) =>
    api.request('POST', `/auth/v1${path}`, { headers: { apikey: PUBLIC_KEY }, body });

  beforeAll(async () => {
    perAddress = await startApp({
      AUTH_CONFIRM_EMAIL: 'true',
      AUTH_MAIL_LIMIT_PER_EMAIL: '2',
      AUTH_MAIL_LIMIT_PER_IP: '1000',
      AUTH_VERIFY_FAILURES_PER_EMAIL: '3',
      AUTH_VERIFY_LIMIT_PER_IP: '1000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}passwordless-address:`,
    });
    perClient = await startApp({
      AUTH_MAIL_LIMIT_PER_EMAIL: '1000',
      AUTH_MAIL_LIMIT_PER_IP: '3',
      AUTH_VERIFY_LIMIT_PER_IP: '3',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}passwordless-client:`,
    });
  });
  afterAll(async () => {
    await perAddress?.close();
    await perClient?.close();
  });

  it('limits e-mails per address, known or not, with the same answer', async () => {
    const known = uniqueEmail('otp-limit-known');
    const unknown = uniqueEmail('otp-limit-unknown');
    expect((await post(perAddress, '/otp', { email: known })).status).toBe(200);
    for (const email of [known, unknown]) {
      const allowed = email === known ? 1 : 2;
      for (let i = 0; i < allowed; i++) {
        expect((await post(perAddress, '/otp', { email, create_user: false })).status).toBe(200);
      }
      const refused = await post(perAddress, '/otp', { email, create_user: false });
      expect(refused.status).toBe(429);
      expect(refused.body.error_code).toBe('over_email_send_rate_limit');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('limits wrong codes per address for type email: past the limit even the right code waits', async () => {
    const email = uniqueEmail('otp-guessed');
    expect((await post(perAddress, '/otp', { email })).status).toBe(200);
    const statuses: number[] = [];
    // The right code is unknown to the test: these guesses are wrong, a one-in-a-million chance aside.
    for (let i = 0; i < 4; i++)
      statuses.push((await post(perAddress, '/verify', { type: 'email', email, token: String(200000 + i) })).status);
    expect(statuses).toEqual([403, 403, 403, 429]);
    const [{ confirmed }] = await perAddress.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT email_confirmed_at IS NOT NULL AS confirmed FROM users WHERE lower(email) = lower($1)', [email]);
    expect(confirmed).toBe(false);
  });

  it('limits e-mail requests and verifications per client address', async () => {
    const mailed: number[] = [];
    for (let i = 0; i < 4; i++) {
      mailed.push((await post(perClient, '/otp', { email: uniqueEmail('otp-client') })).status);
    }
    expect(mailed).toEqual([200, 200, 200, 429]);
    const verified: number[] = [];
    for (let i = 0; i < 4; i++) {
      verified.push((await post(perClient, '/verify', { type: 'magiclink', token_hash: `not-a-token-${i}` })).status);
    }
    expect(verified).toEqual([403, 403, 403, 429]);
  });
});
