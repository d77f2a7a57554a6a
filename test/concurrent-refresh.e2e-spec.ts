import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { merchantWithStore, PUBLIC_KEY, signUp, startApp, type Session, type TestApp } from './support/app.js';
import { sessionIdOf, SYSTEM_DATA_SOURCE } from './support/database.js';

type Refreshed = { status: number; body: Session & { error_code?: string } };

/**
 * Concurrent refresh: a refresh token presented again within AUTH_REFRESH_REUSE_INTERVAL of its own
 * rotation answers the session's current tokens (no second branch, nothing revoked); later, it
 * revokes the family as before. Token rows are counted through the system connection.
 */
describe('refresh token reuse interval', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  const db = (app: TestApp = api) => app.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const withKey = { apikey: PUBLIC_KEY };
  const grant = '/auth/v1/token?grant_type=refresh_token';
  const refresh = (token: string, app: TestApp = api): Promise<Refreshed> =>
    app.request('POST', grant, { headers: withKey, body: { refresh_token: token } });
  const userStatus = async (accessToken: string, app: TestApp = api) =>
    (await app.request('GET', '/auth/v1/user', { token: accessToken })).status;
  /** The session's refresh token rows, oldest first: whether each was used (rotated). */
  const chain = async (session: Session, app: TestApp = api): Promise<{ used: boolean }[]> =>
    db(app).query(
      `SELECT used_at IS NOT NULL AS used FROM auth_refresh_tokens
        WHERE session_id = $1 ORDER BY id`,
      [sessionIdOf(session.access_token)],
    );
  /** Makes the token's own rotation look `seconds` older. */
  const ageRotation = (token: string, seconds: number, app: TestApp = api) =>
    db(app).query(
      `UPDATE auth_refresh_tokens SET used_at = used_at - make_interval(secs => $2)
        WHERE token_hash = $1`,
      [createHash('sha256').update(token).digest(), seconds],
    );

  async function parallelRefreshes(count: number): Promise<void> {
    const session = await signUp(api);
    const results = await Promise.all(Array.from({ length: count }, () => refresh(session.refresh_token)));
    expect(results.map((result) => result.status)).toEqual(Array(count).fill(200));
    // Every caller holds the one child: the same refresh token, an access token of the same session.
    const child = results[0].body.refresh_token;
    expect(child).not.toBe(session.refresh_token);
    expect(new Set(results.map((result) => result.body.refresh_token))).toEqual(new Set([child]));
    for (const result of results) {
      expect(sessionIdOf(result.body.access_token)).toBe(sessionIdOf(session.access_token));
      expect(result.body.user.id).toBe(session.user.id);
      expect(await userStatus(result.body.access_token)).toBe(200);
    }
    // Exactly one rotation: the first token, used, and its one child, live.
    expect(await chain(session)).toEqual([{ used: true }, { used: false }]);
    const next = await refresh(child);
    expect(next.status).toBe(200);
    expect(await chain(session)).toHaveLength(3);
  }

  it('2 parallel refreshes with one token: both 200 with the same child, one rotation', () => parallelRefreshes(2));

  it('20 parallel refreshes with one token: all 200 with the same child, one rotation', () => parallelRefreshes(20));

  it('a token presented again within the interval answers the current tokens, revoking nothing', async () => {
    const session = await signUp(api);
    const first = await refresh(session.refresh_token);
    expect(first.status).toBe(200);
    const again = await refresh(session.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(first.body.refresh_token);
    expect(sessionIdOf(again.body.access_token)).toBe(sessionIdOf(session.access_token));
    expect(await chain(session)).toEqual([{ used: true }, { used: false }]);
    for (const token of [session.access_token, first.body.access_token, again.body.access_token]) {
      expect(await userStatus(token)).toBe(200);
    }

    // The child rotated in turn: the first token, still within its interval, answers the latest one.
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    const latest = await refresh(session.refresh_token);
    expect(latest.status).toBe(200);
    expect(latest.body.refresh_token).toBe(second.body.refresh_token);
    expect(await chain(session)).toEqual([{ used: true }, { used: true }, { used: false }]);
    expect((await refresh(latest.body.refresh_token)).status).toBe(200);
  });

  it('a token and its child presented together, 10 of each: one more rotation, every answer works', async () => {
    const session = await signUp(api);
    const first = await refresh(session.refresh_token);
    const pair = [session.refresh_token, first.body.refresh_token];
    const tokens = Array.from({ length: 20 }, (_, index) => pair[index % 2]);
    const results = await Promise.all(tokens.map((token) => refresh(token)));
    expect(results.map((result) => result.status)).toEqual(Array(20).fill(200));
    // The child rotated once; an answer pinned to it before that rotation holds the child, the others the grandchild.
    expect(await chain(session)).toEqual([{ used: true }, { used: true }, { used: false }]);
    const answered = new Set(results.map((result) => result.body.refresh_token));
    expect([...answered].every((token) => token !== session.refresh_token)).toBe(true);
    for (const result of results) expect(await userStatus(result.body.access_token)).toBe(200);
    // Every answered token still refreshes, into the session's one line of tokens.
    for (const token of answered) expect((await refresh(token)).status).toBe(200);
    expect(await chain(session)).toHaveLength(4);
  });

  it('a token presented again after the interval revokes the family (400 refresh_token_already_used)', async () => {
    const session = await signUp(api);
    const first = await refresh(session.refresh_token);
    expect(first.status).toBe(200);
    await ageRotation(session.refresh_token, 11);
    const late = await refresh(session.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body.error_code).toBe('refresh_token_already_used');
    // The family is over: the child neither refreshes nor is presented again within its grace.
    expect((await refresh(first.body.refresh_token)).status).toBe(400);
    expect(await userStatus(first.body.access_token)).toBe(401);
    expect(await chain(session)).toHaveLength(2);
  });

  it('the interval counts from the token’s own rotation, not from the latest one of its session', async () => {
    const session = await signUp(api);
    const first = await refresh(session.refresh_token);
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    await ageRotation(session.refresh_token, 11);
    const late = await refresh(session.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body.error_code).toBe('refresh_token_already_used');
    expect((await refresh(second.body.refresh_token)).status).toBe(400);
  });

  it('a token of a session that was logged out stays refused within the interval', async () => {
    const session = await signUp(api);
    const first = await refresh(session.refresh_token);
    expect(first.status).toBe(200);
    const out = await api.request('POST', '/auth/v1/logout?scope=local', { token: first.body.access_token });
    expect(out.status).toBe(204);
    const again = await refresh(session.refresh_token);
    expect(again.status).toBe(400);
    expect(again.body.error_code).toBe('refresh_token_already_used');
    expect((await refresh(first.body.refresh_token)).status).toBe(400);
    expect(await chain(session)).toHaveLength(2);
  });

  it('a current token the server cannot recompute (made before derivation) is refused, nothing revoked', async () => {
    const session = await signUp(api);
    const first = await refresh(session.refresh_token);
    // The child as a random token of before would be: a hash the presented token does not lead to.
    const random = createHash('sha256').update(`random-${Math.random()}`).digest();
    await db().query('UPDATE auth_refresh_tokens SET token_hash = $2 WHERE token_hash = $1', [
      createHash('sha256').update(first.body.refresh_token).digest(),
      random,
    ]);
    const again = await refresh(session.refresh_token);
    expect(again.status).toBe(400);
    expect(again.body.error_code).toBe('refresh_token_already_used');
    expect(await userStatus(first.body.access_token)).toBe(200);
  });

  it('answers each caller its own session: parallel refreshes of two users in two stores do not cross', async () => {
    const [a, b] = [await merchantWithStore(api, 'Store A'), await merchantWithStore(api, 'Store B')];
    const results = await Promise.all([a, b, a, b].map(({ session }) => refresh(session.refresh_token)));
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200]);
    expect(results[0].body.refresh_token).toBe(results[2].body.refresh_token);
    expect(results[1].body.refresh_token).toBe(results[3].body.refresh_token);
    expect(results[0].body.refresh_token).not.toBe(results[1].body.refresh_token);
    for (const [index, { session, storeId }] of [a, b, a, b].entries()) {
      const { body } = results[index];
      expect(body.user.id).toBe(session.user.id);
      expect(sessionIdOf(body.access_token)).toBe(sessionIdOf(session.access_token));
      const other = index % 2 === 0 ? b.storeId : a.storeId;
      const store = (id: string) => api.request('GET', `/functions/v1/stores/${id}`, { token: body.access_token });
      expect((await store(storeId)).status).toBe(200);
      expect((await store(other)).status).toBe(404);
    }
  });

  describe('with AUTH_REFRESH_REUSE_INTERVAL=0', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await startApp({ AUTH_REFRESH_REUSE_INTERVAL: '0' });
    });
    afterAll(() => strict.close());

    it('a token presented twice, even at once, revokes its family as before', async () => {
      const session = await signUp(strict);
      const twice = [session.refresh_token, session.refresh_token];
      const results = await Promise.all(twice.map((token) => refresh(token, strict)));
      expect(results.map((result) => result.status).sort()).toEqual([200, 400]);
      const loser = results.find((result) => result.status === 400)!;
      expect(loser.body.error_code).toBe('refresh_token_already_used');
      const winner = results.find((result) => result.status === 200)!;
      expect((await refresh(winner.body.refresh_token, strict)).status).toBe(400);
      expect(await userStatus(winner.body.access_token, strict)).toBe(401);
      expect(await chain(session, strict)).toHaveLength(2);
    });
  });

  describe('with AUTH_REFRESH_REUSE_INTERVAL=1s', () => {
    let brief: TestApp;
    beforeAll(async () => {
      brief = await startApp({ AUTH_REFRESH_REUSE_INTERVAL: '1s' });
    });
    afterAll(() => brief.close());

    it('reuse within the second answers the current tokens; after it, revokes the family', async () => {
      const session = await signUp(brief);
      const first = await refresh(session.refresh_token, brief);
      const soon = await refresh(session.refresh_token, brief);
      expect(soon.status).toBe(200);
      expect(soon.body.refresh_token).toBe(first.body.refresh_token);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const late = await refresh(session.refresh_token, brief);
      expect(late.status).toBe(400);
      expect(late.body.error_code).toBe('refresh_token_already_used');
      expect((await refresh(first.body.refresh_token, brief)).status).toBe(400);
    });
  });
});
