import {
  createClient,
  FunctionsHttpError,
  isAuthApiError,
  type SupabaseClient,
  type WebSocketLikeConstructor,
} from '@supabase/supabase-js';
import type { DataSource } from 'typeorm';
import ws from 'ws';
import { hashToken } from '@app/core';
import { until } from './support/wait.js';
import { codeIn, FakeSmtpServer, verifyLinkIn } from './fakes/smtp-server.js';
import { PUBLIC_KEY, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { createPrivateDatabase, sessionIdOf, SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * Proves GoTrue compatibility: the unmodified @supabase/supabase-js client signs up, signs in,
 * refreshes, signs out and invokes store functions against the real app.
 */
describe('@supabase/supabase-js against the app', () => {
  const password = 'correct horse battery';
  let api: TestApp;

  const client = (): SupabaseClient =>
    createClient(api.url, PUBLIC_KEY, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      // ws's overloaded constructor type does not match realtime-js's; the class itself works (Node 20 has no
      // WebSocket).
      realtime: { transport: ws as unknown as WebSocketLikeConstructor },
    });

  /** A raw refresh-token grant, outside supabase-js. */
  const refreshRaw = (refreshToken: string) =>
    api.request<{ code: number; error_code: string; msg: string }>('POST', '/auth/v1/token?grant_type=refresh_token', {
      headers: { apikey: PUBLIC_KEY },
      body: { refresh_token: refreshToken },
    });

  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  it('signs up a merchant and returns a GoTrue session', async () => {
    const supabase = client();
    const email = uniqueEmail('sbjs-signup');
    const { data, error } = await supabase.auth.signUp({
      email,
      password,
      options: { data: { full_name: 'Ada Merchant' } },
    });
    expect(error).toBeNull();
    expect(data.session).not.toBeNull();
    expect(typeof data.session!.access_token).toBe('string');
    expect(data.session!.access_token.split('.')).toHaveLength(3);
    expect(data.session!.token_type).toBe('bearer');
    expect(data.session!.expires_in).toBe(3600);
    expect(data.session!.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000) + 3500);
    expect(typeof data.session!.refresh_token).toBe('string');
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata.full_name).toBe('Ada Merchant');
    expect(data.user?.role ?? data.user?.app_metadata.role).toBe('merchant');
    expect(data.user?.app_metadata.role).toBe('merchant');

    // The client keeps the session: getSession answers it without a request.
    const { data: current } = await supabase.auth.getSession();
    expect(current.session?.access_token).toBe(data.session!.access_token);
  });

  it('signs in with a password; a wrong password is invalid_credentials', async () => {
    const email = uniqueEmail('sbjs-signin');
    const signedUp = await client().auth.signUp({ email, password });
    expect(signedUp.error).toBeNull();

    const supabase = client();
    const { data, error } = await supabase.auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    expect(data.session?.expires_in).toBe(3600);
    expect(data.session?.access_token).not.toBe(signedUp.data.session?.access_token);
    expect(data.user?.id).toBe(signedUp.data.user?.id);
    expect(data.user?.email).toBe(email);

    const wrong = await client().auth.signInWithPassword({ email, password: 'not the password' });
    expect(wrong.data.session).toBeNull();
    expect(wrong.data.user).toBeNull();
    expect(isAuthApiError(wrong.error)).toBe(true);
    expect(wrong.error?.status).toBe(400);
    expect(wrong.error?.code).toBe('invalid_credentials');
    expect(wrong.error?.message).toBe('Invalid login credentials');

    const unknown = await client().auth.signInWithPassword({ email: uniqueEmail('sbjs-nobody'), password });
    expect(unknown.error?.status).toBe(400);
    expect(unknown.error?.code).toBe('invalid_credentials');
  });

  it('rotates refresh tokens; an old one answers the current session at once, revokes the family later', async () => {
    const supabase = client();
    const { data: signedUp, error: signUpError } = await supabase.auth.signUp({
      email: uniqueEmail('sbjs-refresh'),
      password,
    });
    expect(signUpError).toBeNull();
    const first = signedUp.session!;

    const { data: refreshed, error } = await supabase.auth.refreshSession();
    expect(error).toBeNull();
    const second = refreshed.session!;
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.expires_in).toBe(3600);
    expect(refreshed.user?.id).toBe(signedUp.user?.id);

    // The new session works.
    const me = await api.request('GET', '/auth/v1/user', {
      token: second.access_token,
      headers: { apikey: PUBLIC_KEY },
    });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(signedUp.user?.id);

    // The used token again within AUTH_REFRESH_REUSE_INTERVAL (10 s): the session's current tokens.
    const soon = await client().auth.refreshSession({ refresh_token: first.refresh_token });
    expect(soon.error).toBeNull();
    expect(soon.data.session?.refresh_token).toBe(second.refresh_token);
    expect(soon.data.user?.id).toBe(signedUp.user?.id);

    // After the interval (its rotation made to look 11 s old), through supabase-js (another client:
    // the failure clears a client's session).
    await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query(`UPDATE auth_refresh_tokens SET used_at = used_at - interval '11 seconds' WHERE token_hash = $1`, [
        hashToken(first.refresh_token),
      ]);
    const reuse = await client().auth.refreshSession({ refresh_token: first.refresh_token });
    expect(reuse.data.session).toBeNull();
    expect(isAuthApiError(reuse.error)).toBe(true);
    expect(reuse.error?.status).toBe(400);
    expect(reuse.error?.code).toBe('refresh_token_already_used');

    // And again through a raw fetch: still the reuse answer.
    const rawReuse = await refreshRaw(first.refresh_token);
    expect(rawReuse.status).toBe(400);
    expect(rawReuse.body.error_code).toBe('refresh_token_already_used');

    // The family is revoked: the newer refresh token and the newer access token are refused too.
    const descendant = await refreshRaw(second.refresh_token);
    expect(descendant.status).toBe(400);
    expect(['refresh_token_not_found', 'refresh_token_already_used']).toContain(descendant.body.error_code);
    const viaClient = await supabase.auth.refreshSession();
    expect(viaClient.data.session).toBeNull();
    expect(viaClient.error?.status).toBe(400);
    const afterRevoke = await api.request('GET', '/auth/v1/user', {
      token: second.access_token,
      headers: { apikey: PUBLIC_KEY },
    });
    expect(afterRevoke.status).toBe(401);
  });

  it('two clients sharing one stored session refresh it at once: both stay signed in, one rotation', async () => {
    const stored = new Map<string, string>();
    const storage = {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => void stored.set(key, value),
      removeItem: (key: string) => void stored.delete(key),
    };
    const refreshAnswers: number[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).includes('grant_type=refresh_token')) refreshAnswers.push(response.status);
      return response;
    };
    // Two tabs of one site: a client each, one storage.
    const tab = (): SupabaseClient =>
      createClient(api.url, PUBLIC_KEY, {
        auth: { storage, persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
        global: { fetch: recording },
        realtime: { transport: ws as unknown as WebSocketLikeConstructor },
      });
    const [one, two] = [tab(), tab()];
    const { data: signedUp, error: signUpError } = await one.auth.signUp({ email: uniqueEmail('sbjs-tabs'), password });
    expect(signUpError).toBeNull();
    const shared = signedUp.session!;
    expect((await two.auth.getSession()).data.session?.refresh_token).toBe(shared.refresh_token);

    const results = await Promise.all([one.auth.refreshSession(), two.auth.refreshSession()]);
    // Both refresh requests went out with the stored token and got 200. A tab that finds the other's
    // answer already stored keeps that one (supabase-js's AuthRefreshDiscardedError), and stays signed in.
    expect(refreshAnswers).toEqual([200, 200]);
    const refreshed = results.find((result) => result.error === null)!.data.session!;
    expect(refreshed.refresh_token).not.toBe(shared.refresh_token);
    const errors = results.map((result) => result.error?.name ?? null);
    expect(errors.every((name) => name === null || name === 'AuthRefreshDiscardedError')).toBe(true);
    for (const client of [one, two]) {
      const { data } = await client.auth.getSession();
      expect(data.session?.refresh_token).toBe(refreshed.refresh_token);
      const token = data.session!.access_token;
      const me = await api.request('GET', '/auth/v1/user', { token, headers: { apikey: PUBLIC_KEY } });
      expect(me.status).toBe(200);
    }
    // One rotation: the session holds its first token (used) and the one child.
    const sessionId = sessionIdOf(shared.access_token);
    const [{ n }] = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT count(*)::int AS n FROM auth_refresh_tokens WHERE session_id = $1', [sessionId]);
    expect(n).toBe(2);
    // The stored session refreshes on.
    const { data: later, error: laterError } = await two.auth.refreshSession();
    expect(laterError).toBeNull();
    expect(later.session!.refresh_token).not.toBe(refreshed.refresh_token);
  });

  it('gets the user, rejects a tampered token, and signs out server-side', async () => {
    const supabase = client();
    const email = uniqueEmail('sbjs-user');
    const { data: signedUp, error: signUpError } = await supabase.auth.signUp({
      email,
      password,
      options: { data: { full_name: 'Grace' } },
    });
    expect(signUpError).toBeNull();
    const accessToken = signedUp.session!.access_token;

    const { data, error } = await supabase.auth.getUser();
    expect(error).toBeNull();
    expect(data.user?.id).toBe(signedUp.user?.id);
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata.full_name).toBe('Grace');
    expect(data.user?.app_metadata.role).toBe('merchant');

    // The same token passed explicitly is accepted ...
    const explicit = await client().auth.getUser(accessToken);
    expect(explicit.error).toBeNull();
    expect(explicit.data.user?.id).toBe(signedUp.user?.id);

    // ... but one with a changed signature is not.
    const [header, payload, signature] = accessToken.split('.');
    const flipped = signature[0] === 'A' ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    const tampered = await client().auth.getUser(`${header}.${payload}.${flipped}`);
    expect(tampered.data.user).toBeNull();
    expect(isAuthApiError(tampered.error)).toBe(true);
    expect(tampered.error?.status).toBe(401);

    // A forged payload (another role) under the original signature is refused as well.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims.sub).toBe(signedUp.user?.id);
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
    const forged = await client().auth.getUser(`${header}.${forgedPayload}.${signature}`);
    expect(forged.data.user).toBeNull();
    expect(forged.error?.status).toBe(401);

    const before = await api.request('GET', '/auth/v1/user', { token: accessToken, headers: { apikey: PUBLIC_KEY } });
    expect(before.status).toBe(200);

    const signedOut = await supabase.auth.signOut();
    expect(signedOut.error).toBeNull();
    const { data: afterSession } = await supabase.auth.getSession();
    expect(afterSession.session).toBeNull();

    // supabase-js ignores a failed logout call, so prove the server really ended the session.
    const after = await api.request('GET', '/auth/v1/user', { token: accessToken, headers: { apikey: PUBLIC_KEY } });
    expect(after.status).toBe(401);
    const refreshAfter = await refreshRaw(signedUp.session!.refresh_token);
    expect(refreshAfter.status).toBe(400);
  });

  it('invokes store functions with the session token, and refuses the public key alone', async () => {
    const supabase = client();
    const { error: signUpError } = await supabase.auth.signUp({ email: uniqueEmail('sbjs-functions'), password });
    expect(signUpError).toBeNull();

    const created = await supabase.functions.invoke<{ success: boolean; store: { id: string; name: string } }>(
      'stores',
      {
        method: 'POST',
        body: { name: 'Invoked store' },
      },
    );
    expect(created.error).toBeNull();
    expect(created.data?.success).toBe(true);
    expect(created.data?.store.name).toBe('Invoked store');
    expect(created.data?.store.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.response?.status).toBe(201);

    const listed = await supabase.functions.invoke<{ success: boolean; data: { id: string; name: string }[] }>(
      'stores',
      {
        method: 'GET',
      },
    );
    expect(listed.error).toBeNull();
    expect(listed.data?.success).toBe(true);
    expect(listed.data?.data.map((store) => store.id)).toEqual([created.data!.store.id]);
    expect(listed.data?.data[0].name).toBe('Invoked store');

    // No session: supabase-js sends the public key as the bearer token.
    const anonymous = await client().functions.invoke('stores');
    expect(anonymous.data).toBeNull();
    expect(anonymous.error).toBeInstanceOf(FunctionsHttpError);
    const response = (anonymous.error as FunctionsHttpError).context as Response;
    expect(response.status).toBe(401);
    const body = (await response.json()) as { success: boolean; error: { code: string; message: string } };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('UNAUTHENTICATED');
    expect(body.error.message).toMatch(/token/i);

    const anonymousList = await client().functions.invoke('stores', { method: 'GET' });
    expect(anonymousList.error).toBeInstanceOf(FunctionsHttpError);
    expect(((anonymousList.error as FunctionsHttpError).context as Response).status).toBe(401);
  });
});

/**
 * The account calls of supabase-js against an app with e-mail confirmation on and its mail relay
 * sending to an SMTP fake: signUp without a session, resend, verifyOtp (code and link token),
 * resetPasswordForEmail, updateUser (password, e-mail, data), each as the unmodified client makes it.
 * On a database of its own: its mail relay must not send other files' e-mails, nor they its.
 */
describe('@supabase/supabase-js account calls', () => {
  const password = 'correct horse battery';
  const smtp = new FakeSmtpServer();
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  const client = (): SupabaseClient =>
    createClient(api.url, PUBLIC_KEY, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: ws as unknown as WebSocketLikeConstructor },
    });
  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

  beforeAll(async () => {
    await smtp.start();
    database = await createPrivateDatabase('sbjs_mail');
    api = await startApp({
      DATABASE_URL: database.url,
      AUTH_CONFIRM_EMAIL: 'true',
      MAIL_RELAY: 'true',
      SMTP_URL: smtp.url,
      MAIL_POLL_INTERVAL_MS: '100',
      AUTH_MAIL_LIMIT_PER_IP: '1000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}sbjs-accounts:`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await smtp.stop();
    await database?.drop();
  });

  it('signUp answers the user without a session; resend and verifyOtp with the code confirm and sign in', async () => {
    const supabase = client();
    const email = uniqueEmail('sbjs-confirm');
    const signedUp = await supabase.auth.signUp({
      email,
      password,
      options: { emailRedirectTo: 'http://localhost:5173/done' },
    });
    expect(signedUp.error).toBeNull();
    expect(signedUp.data.session).toBeNull();
    expect(signedUp.data.user?.email).toBe(email);
    expect(signedUp.data.user?.email_confirmed_at).toBeNull();

    const early = await client().auth.signInWithPassword({ email, password });
    expect(isAuthApiError(early.error)).toBe(true);
    expect(early.error?.code).toBe('email_not_confirmed');

    const resent = await supabase.auth.resend({
      type: 'signup',
      email,
      options: { emailRedirectTo: 'http://localhost:5173/again' },
    });
    expect(resent.error).toBeNull();
    // The relay may send the two e-mails in either order: each is told by where its link leads
    // (emailRedirectTo travels as redirect_to), and each call's link leads where it asked.
    const mails = await smtp.waitFor(email, 2);
    const redirectOf = (mail: (typeof mails)[number]) => new URL(verifyLinkIn(mail)).searchParams.get('redirect_to');
    expect(mails.map(redirectOf).sort()).toEqual(['http://localhost:5173/again', 'http://localhost:5173/done']);
    const latest = mails.find((mail) => redirectOf(mail) === 'http://localhost:5173/again')!;

    const wrong = await supabase.auth.verifyOtp({
      email,
      token: codeIn(latest) === '999999' ? '000000' : '999999',
      type: 'signup',
    });
    expect(wrong.error?.status).toBe(403);
    expect(wrong.error?.code).toBe('otp_expired');

    const verified = await supabase.auth.verifyOtp({ email, token: codeIn(latest), type: 'signup' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token.split('.')).toHaveLength(3);
    expect(verified.data.user?.email_confirmed_at).toEqual(expect.any(String));
    // The client keeps the session it got.
    expect((await supabase.auth.getUser()).data.user?.id).toBe(signedUp.data.user?.id);
    expect((await client().auth.signInWithPassword({ email, password })).error).toBeNull();
  });

  it('resetPasswordForEmail → verifyOtp with the link token (PASSWORD_RECOVERY) → updateUser({password})', async () => {
    const email = uniqueEmail('sbjs-reset');
    expect((await client().auth.signUp({ email, password })).error).toBeNull();
    const [confirmation] = await smtp.waitFor(email);
    expect(
      (await client().auth.verifyOtp({ token_hash: tokenOf(verifyLinkIn(confirmation)), type: 'signup' })).error,
    ).toBeNull();

    const reset = await client().auth.resetPasswordForEmail(email, { redirectTo: 'http://localhost:5173/reset' });
    expect(reset).toEqual({ data: {}, error: null });
    const unknown = await client().auth.resetPasswordForEmail(uniqueEmail('sbjs-nobody'));
    expect(unknown).toEqual({ data: {}, error: null });
    const [, recovery] = await smtp.waitFor(email, 2);

    const supabase = client();
    const events: string[] = [];
    supabase.auth.onAuthStateChange((event) => void events.push(event));
    const recovered = await supabase.auth.verifyOtp({ token_hash: tokenOf(verifyLinkIn(recovery)), type: 'recovery' });
    expect(recovered.error).toBeNull();
    expect(recovered.data.session).not.toBeNull();
    await until(() => events.includes('PASSWORD_RECOVERY'), 'the PASSWORD_RECOVERY event');

    const updated = await supabase.auth.updateUser({ password: 'a fresh new password' });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.email).toBe(email);
    expect((await client().auth.signInWithPassword({ email, password })).error?.code).toBe('invalid_credentials');
    expect((await client().auth.signInWithPassword({ email, password: 'a fresh new password' })).error).toBeNull();

    // The same link token again: refused, as supabase-js reports it.
    const again = await client().auth.verifyOtp({ token_hash: tokenOf(verifyLinkIn(recovery)), type: 'recovery' });
    expect(isAuthApiError(again.error)).toBe(true);
    expect(again.error?.code).toBe('otp_expired');
  });

  it('updateUser changes data at once and the e-mail after verifyOtp on the new address', async () => {
    const email = uniqueEmail('sbjs-move');
    expect((await client().auth.signUp({ email, password })).error).toBeNull();
    const [confirmation] = await smtp.waitFor(email);
    const supabase = client();
    expect((await supabase.auth.verifyOtp({ email, token: codeIn(confirmation), type: 'signup' })).error).toBeNull();

    const data = await supabase.auth.updateUser({ data: { full_name: 'Ada Renamed', theme: 'dark' } });
    expect(data.error).toBeNull();
    expect(data.data.user?.user_metadata).toEqual({ full_name: 'Ada Renamed', theme: 'dark' });

    const newEmail = uniqueEmail('sbjs-moved');
    const asked = await supabase.auth.updateUser({ email: newEmail });
    expect(asked.error).toBeNull();
    expect(asked.data.user?.email).toBe(email);
    expect(asked.data.user?.new_email).toBe(newEmail);
    const [change] = await smtp.waitFor(newEmail);
    const changed = await supabase.auth.verifyOtp({ email: newEmail, token: codeIn(change), type: 'email_change' });
    expect(changed.error).toBeNull();
    expect(changed.data.user?.email).toBe(newEmail);
    expect((await supabase.auth.getUser()).data.user?.email).toBe(newEmail);
    await smtp.waitFor(email, 2);
    expect(smtp.to(email)[1].template).toBe('email_changed');

    const weak = await supabase.auth.updateUser({ password: 'short' });
    expect(weak.error?.code).toBe('weak_password');
  });
});
