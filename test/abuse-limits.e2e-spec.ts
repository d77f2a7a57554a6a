import { randomUUID } from 'node:crypto';
import { createRedis, redisConfig, RedisThrottlerStorage } from '@app/core';
import { PUBLIC_KEY, startApp, uniqueEmail, type HttpResult, type TestApp } from './support/app.js';

const PASSWORD = 'correct horse battery';

/** A fresh address for each call: an attacker with many addresses. */
let nextAddress = 0;
const freshAddress = () =>
  `10.${100 + Math.floor(nextAddress / 250)}.${nextAddress % 250}.${1 + (nextAddress++ % 200)}`;

/** Sign-in and sign-up limits with one proxy in front (TRUST_PROXY=1): the client is the last X-Forwarded-For entry. */
describe('abuse limits', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startApp({
      TRUST_PROXY: '1',
      SIGNIN_LIMIT_PER_IP: '8',
      SIGNIN_LIMIT_PER_EMAIL: '3',
      SIGNIN_ACCOUNT_FAILURES_PER_HOUR: '4',
      SIGNIN_KNOWN_FAILURES_PER_HOUR: '6',
      SIGNUP_LIMIT_PER_IP: '3',
      // Counters of earlier runs (same addresses) stay out of the way.
      REDIS_PREFIX: `${process.env.REDIS_PREFIX ?? 'storefront:'}abuse-${randomUUID().slice(0, 8)}:`,
    });
  });
  afterAll(() => api.close());

  const signIn = (email: string, address: string, password = PASSWORD) =>
    api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY, 'x-forwarded-for': address },
      body: { email, password },
    });
  const signUp = (address: string, email = uniqueEmail('abuse')) =>
    api.request('POST', '/auth/v1/signup', {
      headers: { apikey: PUBLIC_KEY, 'x-forwarded-for': address },
      body: { email, password: PASSWORD },
    });

  /** An account, signed up from an address of its own. */
  async function account(): Promise<string> {
    const email = uniqueEmail('owner');
    const created = await signUp(freshAddress(), email);
    expect(created.status).toBe(200);
    return email;
  }

  function expectRateLimited(result: HttpResult): void {
    expect(result.status).toBe(429);
    expect(result.body).toEqual({
      code: 429,
      error_code: 'over_request_rate_limit',
      msg: expect.stringContaining('retry in'),
    });
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  it(
    'counts a sign-in on a Redis client still making its first ' +
      'connection (no 503 for the first sign-in after a start)',
    async () => {
      const redis = createRedis(api.settings.get(redisConfig));
      try {
        expect(redis.status).toBe('connecting');
        const storage = new RedisThrottlerStorage(redis);
        const key = `first-connection:${randomUUID()}`;
        // The request throttle fails fast (and open) on a client not ready; the sign-in count waits for it.
        await expect(storage.count(key, 60_000, 5, 60_000, 'signin')).rejects.toThrow('Redis is connecting');
        expect((await storage.count(key, 60_000, 5, 60_000, 'signin', true)).totalHits).toBe(1);
      } finally {
        redis.disconnect();
      }
    },
  );

  it(
    'counts attempts by the address the proxy saw: rotating the ' +
      'left of X-Forwarded-For does not escape the per-address limit',
    async () => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 9; attempt++) {
        const spoofed = `203.0.113.${attempt + 1}, 10.0.0.7`;
        statuses.push((await signIn(uniqueEmail('nobody'), spoofed, 'wrong password!')).status);
      }
      expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 429]);
      expectRateLimited(await signIn(uniqueEmail('nobody'), `198.51.100.1, 10.0.0.7`));
      // Another client behind the same proxy is not affected.
      expect((await signIn(uniqueEmail('nobody'), '10.0.0.8', 'wrong password!')).status).toBe(400);
    },
  );

  it(
    'an attacker with many addresses exhausts the unknown-address ' +
      'budget, and the owner still signs in from an address used before',
    async () => {
      const email = await account();
      const home = freshAddress();
      expect((await signIn(email, home)).status).toBe(200);

      const attacks: number[] = [];
      for (let attempt = 0; attempt < 6; attempt++)
        attacks.push((await signIn(email, freshAddress(), `guess ${attempt}`)).status);
      expect(attacks).toEqual([400, 400, 400, 400, 429, 429]);
      // From a new address even the right password waits: the budget is spent before the password is checked.
      expectRateLimited(await signIn(email, freshAddress()));

      const owner = await signIn(email, home);
      expect(owner.status).toBe(200);
      expect(owner.body.user.email).toBe(email);
    },
  );

  it('bounds the failures per account per hour, known addresses included, however many addresses try', async () => {
    const email = await account();
    const known = [freshAddress(), freshAddress(), freshAddress()];
    for (const address of known) expect((await signIn(email, address)).status).toBe(200);

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++)
      statuses.push((await signIn(email, freshAddress(), 'wrong password!')).status);
    // Each known address may try 3 times (SIGNIN_LIMIT_PER_EMAIL), but together only 6
    // (SIGNIN_KNOWN_FAILURES_PER_HOUR).
    for (let round = 0; round < 3; round++) {
      for (const address of known) statuses.push((await signIn(email, address, 'wrong password!')).status);
    }
    expect(statuses.filter((status) => status === 400)).toHaveLength(4 + 6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2 + 3);
    expect(statuses.slice(6)).toEqual([400, 400, 400, 400, 400, 400, 429, 429, 429]);
  });

  it('a successful sign-in does not use up the failure budget', async () => {
    const email = await account();
    const address = freshAddress();
    for (let attempt = 0; attempt < 4; attempt++) expect((await signIn(email, address)).status).toBe(200);
    const failures: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++)
      failures.push((await signIn(email, address, 'wrong password!')).status);
    expect(failures).toEqual([400, 400, 400, 429]);
  });

  it('limits sign-ups per client address with 429 over_request_rate_limit and Retry-After', async () => {
    const address = freshAddress();
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await signUp(`198.51.100.${attempt + 1}, ${address}`)).status).toBe(200);
    expectRateLimited(await signUp(`198.51.100.99, ${address}`));
    expect((await signUp(freshAddress())).status).toBe(200);
  });
});
