import { decodeJwt } from 'jose';
import { FakeOidcServer, s256, type IdTokenTampering } from './fakes/oidc-server.js';
import { PUBLIC_KEY, startApp, uniqueEmail, type TestApp } from './support/app.js';

const CLIENT_ID = 'fake-client-id.apps.googleusercontent.com';
const CLIENT_SECRET = 'fake-client-secret-0123456789';
const PUBLIC_BASE_URL = 'http://127.0.0.1:3999';
const CALLBACK_URL = `${PUBLIC_BASE_URL}/auth/v1/callback`;
const REDIRECT_TO = 'http://localhost:5173/welcome?next=%2Fdashboard';

interface Authorization {
  location: URL;
  state: string;
  nonce: string;
  codeChallenge: string;
  redirectUri: string;
}

interface CallbackResult {
  status: number;
  location: URL | null;
  /** The parameters in the Location's fragment. */
  fragment: URLSearchParams;
  body: any;
}

describe('Google sign-in (e2e against a fake OIDC provider)', () => {
  let google: FakeOidcServer;
  let api: TestApp;

  beforeAll(async () => {
    google = await FakeOidcServer.start({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    api = await startApp({
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_ISSUER: google.issuer,
      GOOGLE_AUTHORIZATION_URL: google.authorizationUrl,
      GOOGLE_TOKEN_URL: google.tokenUrl,
      GOOGLE_JWKS_URL: google.jwksUrl,
      PUBLIC_BASE_URL,
      ALLOWED_REDIRECT_ORIGINS: 'http://localhost:5173',
    });
  });

  afterAll(async () => {
    await api?.close();
    await google?.close();
  });

  /** GET /auth/v1/authorize and read the consent-page redirect. */
  async function authorize(redirectTo = REDIRECT_TO): Promise<Authorization> {
    const result = await api.request(
      'GET',
      `/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(redirectTo)}`,
    );
    expect(result.status, JSON.stringify(result.body)).toBe(302);
    const location = new URL(result.headers.get('location')!);
    const param = (name: string) => location.searchParams.get(name) ?? '';
    return {
      location,
      state: param('state'),
      nonce: param('nonce'),
      codeChallenge: param('code_challenge'),
      redirectUri: param('redirect_uri'),
    };
  }

  /** The browser coming back from Google to /auth/v1/callback. */
  async function callback(query: Record<string, string>): Promise<CallbackResult> {
    const result = await api.request('GET', `/auth/v1/callback?${new URLSearchParams(query).toString()}`);
    const raw = result.headers.get('location');
    const location = raw ? new URL(raw) : null;
    return {
      status: result.status,
      location,
      fragment: new URLSearchParams(location?.hash.slice(1) ?? ''),
      body: result.body,
    };
  }

  /** authorize → the user approves at the fake → callback. */
  async function signIn(
    email: string,
    options: { emailVerified?: boolean; name?: string; tamper?: IdTokenTampering; codeChallenge?: string } = {},
  ): Promise<CallbackResult & { auth: Authorization; code: string }> {
    const auth = await authorize();
    const code = google.issueCode({
      codeChallenge: options.codeChallenge ?? auth.codeChallenge,
      nonce: auth.nonce,
      redirectUri: auth.redirectUri,
      email,
      emailVerified: options.emailVerified ?? true,
      name: options.name,
      tamper: options.tamper,
    });
    return {
      ...(await callback({
        code,
        state: auth.state,
        iss: google.issuer,
        scope: 'openid email profile',
        authuser: '0',
        prompt: 'consent',
      })),
      auth,
      code,
    };
  }

  /** The Location went back to redirect_to (same origin, path and query), with a fragment. */
  function expectBackAtRedirectTo(result: CallbackResult): void {
    expect(result.status, JSON.stringify(result.body)).toBe(302);
    expect(result.location).not.toBeNull();
    const expected = new URL(REDIRECT_TO);
    expect(result.location!.origin).toBe(expected.origin);
    expect(result.location!.pathname).toBe(expected.pathname);
    expect(result.location!.search).toBe(expected.search);
    expect(result.location!.hash.length).toBeGreaterThan(1);
  }

  function expectErrorFragment(result: CallbackResult, errorCode?: string): void {
    expectBackAtRedirectTo(result);
    expect(result.fragment.get('error'), result.fragment.toString()).toBeTruthy();
    if (errorCode) expect(result.fragment.get('error'), result.fragment.toString()).toBe(errorCode);
    expect(result.fragment.get('error_description')).toBeTruthy();
    expect(result.fragment.has('access_token')).toBe(false);
    expect(result.fragment.has('refresh_token')).toBe(false);
  }

  it(
    'redirects /authorize to the consent page with client_id, ' +
      'redirect_uri, scope, state, nonce and an S256 PKCE challenge',
    async () => {
      const requestsBefore = google.requests.length;
      const first = await authorize();
      const { location } = first;
      expect(`${location.origin}${location.pathname}`).toBe(google.authorizationUrl);
      expect(location.searchParams.get('client_id')).toBe(CLIENT_ID);
      expect(location.searchParams.get('redirect_uri')).toBe(CALLBACK_URL);
      expect(location.searchParams.get('response_type')).toBe('code');
      const scopes = (location.searchParams.get('scope') ?? '').split(' ');
      expect(scopes).toEqual(expect.arrayContaining(['openid', 'email']));
      // state and nonce: base64url, at least 128 bits of randomness (22 base64url characters).
      expect(first.state).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(first.nonce).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      // S256 challenge: base64url of a SHA-256 digest is exactly 43 characters.
      expect(first.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(location.searchParams.get('code_challenge_method')).toBe('S256');
      // Nothing secret leaves in the URL: no client secret, no code verifier.
      expect(location.toString()).not.toContain(CLIENT_SECRET);
      expect(location.searchParams.has('client_secret')).toBe(false);
      expect(location.searchParams.has('code_verifier')).toBe(false);

      // Fresh values for every sign-in.
      const second = await authorize();
      expect(second.state).not.toBe(first.state);
      expect(second.nonce).not.toBe(first.nonce);
      expect(second.codeChallenge).not.toBe(first.codeChallenge);
      // Building the URL needs no call to the provider.
      expect(google.requests.length).toBe(requestsBefore);
    },
  );

  it(
    'signs a Google user in end to end: code exchange ' + 'with PKCE, session in the fragment, /user, refresh',
    async () => {
      const email = uniqueEmail('google');
      const tokenRequestsBefore = google.tokenRequests.length;
      const result = await signIn(email, { name: 'Grace Google' });

      // Back at redirect_to with a GoTrue session in the fragment.
      expectBackAtRedirectTo(result);
      const { fragment } = result;
      expect(fragment.get('error'), fragment.toString()).toBeNull();
      expect(fragment.get('access_token')).toBeTruthy();
      expect(fragment.get('refresh_token')).toBeTruthy();
      expect(fragment.get('expires_in')).toBe('3600');
      expect(fragment.get('token_type')).toBe('bearer');
      const now = Math.floor(Date.now() / 1000);
      expect(Number(fragment.get('expires_at'))).toBeGreaterThanOrEqual(now + 3600 - 60);
      expect(Number(fragment.get('expires_at'))).toBeLessThanOrEqual(now + 3600 + 60);

      // The fake's token endpoint got exactly one exchange, with the right client, code, redirect_uri and verifier.
      const exchanges = google.tokenRequests.slice(tokenRequestsBefore);
      expect(exchanges).toHaveLength(1);
      const [exchange] = exchanges;
      expect(exchange.status).toBe(200);
      expect(exchange.form.grant_type).toBe('authorization_code');
      expect(exchange.form.code).toBe(result.code);
      expect(exchange.form.client_id).toBe(CLIENT_ID);
      expect(exchange.form.client_secret).toBe(CLIENT_SECRET);
      expect(exchange.form.redirect_uri).toBe(CALLBACK_URL);
      expect(exchange.form.code_verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
      expect(s256(exchange.form.code_verifier)).toBe(result.auth.codeChallenge);
      expect(exchange.headers.authorization).toBeUndefined(); // client_secret_post, not basic
      // The ID token it returned carried the nonce of the /authorize redirect.
      expect(decodeJwt(exchange.idToken!).nonce).toBe(result.auth.nonce);
      // The ID token's signature was checked against the fake's JWKS.
      expect(google.requests.some((request) => request.path === '/jwks')).toBe(true);

      // The access token is the app's own, for the Google user.
      const accessToken = fragment.get('access_token')!;
      const user = await api.request('GET', '/auth/v1/user', { token: accessToken });
      expect(user.status, JSON.stringify(user.body)).toBe(200);
      expect(user.body.email).toBe(email);
      expect(user.body.role).toBe('merchant');
      expect(user.body.app_metadata.provider).toBe('google');
      expect(user.body.user_metadata.full_name).toBe('Grace Google');
      expect(decodeJwt(accessToken).sub).toBe(user.body.id);
      expect(decodeJwt(accessToken).email).toBe(email);

      // The refresh token rotates into a new session for the same user.
      const refreshed = await api.request('POST', '/auth/v1/token?grant_type=refresh_token', {
        headers: { apikey: PUBLIC_KEY },
        body: { refresh_token: fragment.get('refresh_token') },
      });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect(refreshed.body.token_type).toBe('bearer');
      expect(refreshed.body.expires_in).toBe(3600);
      expect(refreshed.body.user.id).toBe(user.body.id);
      expect(refreshed.body.user.email).toBe(email);
      expect(refreshed.body.refresh_token).not.toBe(fragment.get('refresh_token'));
      const again = await api.request('GET', '/auth/v1/user', { token: refreshed.body.access_token });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(user.body.id);
    },
  );

  it('accepts a state once: a reused state answers 400 bad_oauth_state without calling the provider', async () => {
    const first = await signIn(uniqueEmail('google-reuse'));
    expectBackAtRedirectTo(first);
    expect(first.fragment.get('access_token'), first.fragment.toString()).toBeTruthy();

    const tokenRequestsBefore = google.tokenRequests.length;
    // The same callback replayed…
    const replay = await callback({ code: first.code, state: first.auth.state });
    expect(replay.status).toBe(400);
    expect(replay.location).toBeNull();
    expect(replay.body).toMatchObject({ code: 400, error_code: 'bad_oauth_state' });
    expect(typeof replay.body.msg).toBe('string');
    // …or the old state with a freshly approved code.
    const freshCode = google.issueCode({
      codeChallenge: first.auth.codeChallenge,
      nonce: first.auth.nonce,
      redirectUri: first.auth.redirectUri,
      email: uniqueEmail('google-reuse'),
    });
    const withFreshCode = await callback({ code: freshCode, state: first.auth.state });
    expect(withFreshCode.status).toBe(400);
    expect(withFreshCode.location).toBeNull();
    expect(withFreshCode.body.error_code).toBe('bad_oauth_state');
    expect(google.tokenRequests.length).toBe(tokenRequestsBefore);
  });

  it('answers 400 bad_oauth_state for an unknown or missing state', async () => {
    const auth = await authorize();
    const code = google.issueCode({
      codeChallenge: auth.codeChallenge,
      nonce: auth.nonce,
      redirectUri: auth.redirectUri,
      email: uniqueEmail(),
    });
    const tokenRequestsBefore = google.tokenRequests.length;

    const unknown = await callback({ code, state: `${auth.state}x` });
    expect(unknown.status).toBe(400);
    expect(unknown.location).toBeNull();
    expect(unknown.body).toMatchObject({ code: 400, error_code: 'bad_oauth_state' });

    const madeUp = await callback({ code, state: 'A'.repeat(43) });
    expect(madeUp.status).toBe(400);
    expect(madeUp.body.error_code).toBe('bad_oauth_state');

    const missing = await callback({ code });
    expect(missing.status).toBe(400);
    expect(missing.location).toBeNull();
    expect(missing.body.error_code).toBe('bad_oauth_state');

    expect(google.tokenRequests.length).toBe(tokenRequestsBefore);
    // The genuine state was not consumed by those attempts.
    const genuine = await callback({ code, state: auth.state });
    expectBackAtRedirectTo(genuine);
    expect(genuine.fragment.get('access_token'), genuine.fragment.toString()).toBeTruthy();
  });

  it.each([
    'https://evil.example/welcome',
    'http://localhost:5174/welcome',
    'https://localhost:5173/welcome',
    'http://localhost:5173.evil.example/welcome',
    'http://evil.example/?http://localhost:5173',
    'javascript:alert(1)',
    'not a url',
  ])('refuses redirect_to %s with 400 and no redirect', async (redirectTo) => {
    const result = await api.request(
      'GET',
      `/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(redirectTo)}`,
    );
    expect(result.status).toBe(400);
    expect(result.headers.get('location')).toBeNull();
    expect(result.body.code).toBe(400);
    expect(typeof result.body.error_code).toBe('string');
    expect(typeof result.body.msg).toBe('string');
  });

  it('refuses an unsupported provider with 400 and no redirect', async () => {
    const result = await api.request(
      'GET',
      `/auth/v1/authorize?provider=github&redirect_to=${encodeURIComponent(REDIRECT_TO)}`,
    );
    expect(result.status).toBe(400);
    expect(result.headers.get('location')).toBeNull();
  });

  it('does not sign in a Google account whose e-mail is not verified', async () => {
    const email = uniqueEmail('google-unverified');
    const result = await signIn(email, { emailVerified: false });
    expectErrorFragment(result, 'email_not_confirmed');
    // The exchange itself did happen and succeed: the refusal is the app's own check.
    expect(google.tokenRequests.at(-1)!.status).toBe(200);
  });

  it.each<[string, IdTokenTampering]>([
    ['a wrong nonce', { claims: { nonce: 'not-the-nonce-of-this-sign-in-0123456789' } }],
    ['no nonce', { claims: { nonce: undefined } }],
    [
      'another audience',
      { claims: { aud: 'someone-else.apps.googleusercontent.com', azp: 'someone-else.apps.googleusercontent.com' } },
    ],
    ['another issuer', { claims: { iss: 'https://accounts.example.com' } }],
    [
      'an expired token',
      { claims: { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 } },
    ],
    ['a signature by a key not in the JWKS', { signWithUnknownKey: true }],
  ])('refuses an ID token with %s (redirect with #error=)', async (_label, tamper) => {
    const result = await signIn(uniqueEmail('google-tampered'), { tamper });
    expectErrorFragment(result, 'bad_oauth_callback');
    expect(google.tokenRequests.at(-1)!.status).toBe(200);
  });

  it('redirects with #error= when the token endpoint rejects the exchange (PKCE verifier does not match)', async () => {
    const result = await signIn(uniqueEmail('google-pkce'), {
      codeChallenge: s256('a-different-verifier-that-the-app-never-had-0123'),
    });
    expectErrorFragment(result, 'bad_oauth_callback');
    const exchange = google.tokenRequests.at(-1)!;
    expect(exchange.status).toBe(400);
    expect(exchange.error).toBe('invalid_grant');
  });

  it('passes a consent refusal back to redirect_to as #error=', async () => {
    const auth = await authorize();
    const tokenRequestsBefore = google.tokenRequests.length;
    const result = await callback({ error: 'access_denied', state: auth.state });
    expectErrorFragment(result, 'access_denied');
    expect(google.tokenRequests.length).toBe(tokenRequestsBefore);
    // The state is spent.
    const replay = await callback({ error: 'access_denied', state: auth.state });
    expect(replay.status).toBe(400);
    expect(replay.body.error_code).toBe('bad_oauth_state');
  });

  it('reuses the same user for a second sign-in of the same Google e-mail', async () => {
    const email = uniqueEmail('google-twice');
    const first = await signIn(email, { name: 'Twice' });
    const second = await signIn(email.toUpperCase(), { name: 'Twice' });
    expect(first.fragment.get('access_token'), first.fragment.toString()).toBeTruthy();
    expect(second.fragment.get('access_token'), second.fragment.toString()).toBeTruthy();
    const firstUser = await api.request('GET', '/auth/v1/user', { token: first.fragment.get('access_token')! });
    const secondUser = await api.request('GET', '/auth/v1/user', { token: second.fragment.get('access_token')! });
    expect(firstUser.status).toBe(200);
    expect(secondUser.status).toBe(200);
    expect(secondUser.body.id).toBe(firstUser.body.id);
    expect(secondUser.body.email).toBe(email);
    expect(secondUser.body.app_metadata.provider).toBe('google');
    // Two sessions: the second sign-in did not end the first.
    expect(first.fragment.get('refresh_token')).not.toBe(second.fragment.get('refresh_token'));
    expect(decodeJwt(first.fragment.get('access_token')!).session_id).not.toBe(
      decodeJwt(second.fragment.get('access_token')!).session_id,
    );

    // A different Google account is a different user.
    const other = await signIn(uniqueEmail('google-other'));
    const otherUser = await api.request('GET', '/auth/v1/user', { token: other.fragment.get('access_token')! });
    expect(otherUser.status).toBe(200);
    expect(otherUser.body.id).not.toBe(firstUser.body.id);
  });
});
