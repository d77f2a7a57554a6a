import { createHmac } from 'node:crypto';
import type { ExecutionContext } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { FastifyRequest } from 'fastify';
import { ApiError, type AppThrottlerGuard, type CallerFacts, type CallerLookup } from '@app/core';
import { authConfig } from '../auth.config.js';
import { AccessTokenService, accessTokenJwtOptions } from '../sessions/access-token.service.js';
import { JwtStrategy } from './jwt.strategy.js';

const config = authConfig.from({ NODE_ENV: 'test', JWT_SECRET: 'unit-test-secret-0123456789-0123456789' });
const tokens = new AccessTokenService(new JwtService(accessTokenJwtOptions(config)), config);
const user = { id: '0b8c7b8e-5d0e-4a43-9a53-2f4b1b0c1a11', email: 'owner@example.com', role: 'merchant' as const };

/** The database's answer for session s-1: the same user, now an admin (a claim never decides the role). */
let facts: CallerFacts | null;
const looked: string[] = [];
const counted: string[] = [];
const callers = {
  lookUp: async (sessionId: string) => (looked.push(sessionId), facts),
} as unknown as CallerLookup;
const throttler = {
  startEarly: (_context: ExecutionContext, userId: string) => void counted.push(userId),
} as unknown as AppThrottlerGuard;
const strategy = new JwtStrategy(config, callers, throttler);

/** A token with any header and claims, signed HS-style with any secret. */
function forge(header: object, claims: object, secret = config.jwtSecret, digest = 'sha256'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part(header)}.${part(claims)}`;
  return `${unsigned}.${createHmac(digest, secret).update(unsigned).digest('base64url')}`;
}

type Outcome = { user: unknown } | { fail: unknown } | { error: unknown };

/** Runs the strategy as passport does, on a request to a /functions/v1 route presenting `token`. */
function authenticate(token: string): Promise<Outcome> {
  const request = {
    url: '/functions/v1/stores',
    credentials: { kind: 'token', token },
    routeAuth: { context: {} as ExecutionContext, storeReference: null, inTransaction: false },
  } as unknown as FastifyRequest;
  return new Promise((resolve) => {
    const attempt = Object.create(strategy) as JwtStrategy;
    attempt.success = (principal) => resolve({ user: principal });
    attempt.fail = (info?: unknown) => resolve({ fail: info ?? 401 });
    attempt.error = (error) => resolve({ error });
    attempt.authenticate(request as never, {});
  });
}

describe('JwtStrategy (passport-jwt)', () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    sub: user.id,
    email: user.email,
    role: 'merchant',
    aud: 'authenticated',
    iat: now,
    exp: now + 60,
    session_id: 's-1',
  };

  beforeEach(() => {
    facts = {
      userId: user.id,
      email: user.email,
      role: 'admin',
      storeId: null,
      relation: null,
      permissions: null,
      recordOwner: null,
      storeCount: null,
    };
    looked.length = 0;
    counted.length = 0;
  });

  it('accepts what AccessTokenService signs (HS256, our audience) and takes the role from the database', async () => {
    const { token, expiresAt } = tokens.sign(user, 's-1', now);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    expect(expiresAt).toBe(now + 3600);
    expect(await authenticate(token)).toEqual({
      user: { kind: 'user', userId: user.id, email: user.email, role: 'admin', sessionId: 's-1' },
    });
    expect(looked).toEqual(['s-1']);
    expect(counted).toEqual([user.id]);
    expect(await authenticate(forge({ alg: 'HS256', typ: 'JWT' }, claims))).toMatchObject({
      user: { userId: user.id },
    });
  });

  it.each([
    ['another secret', forge({ alg: 'HS256', typ: 'JWT' }, claims, 'some-other-secret-0123456789-0123456789')],
    ['another audience', forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, aud: 'service_role' })],
    ['HS512 with the right secret', forge({ alg: 'HS512', typ: 'JWT' }, claims, config.jwtSecret, 'sha512')],
    ['alg none', `${forge({ alg: 'none', typ: 'JWT' }, claims).split('.').slice(0, 2).join('.')}.`],
    ['an expired token', forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: now - 1 })],
    ['a changed byte', changeOneSignatureCharacter(tokens.sign(user, 's-1', now).token)],
  ])('fails a token with %s, before the database is asked', async (_label, token) => {
    expect(await authenticate(token)).toHaveProperty('fail');
    expect(looked).toEqual([]);
  });

  it('refuses a signed token with an unknown role or no session with bad_jwt, without a lookup', async () => {
    for (const bad of [
      { ...claims, role: 'root' },
      { ...claims, session_id: undefined },
    ]) {
      const outcome = await authenticate(forge({ alg: 'HS256', typ: 'JWT' }, bad));
      expect(outcome).toHaveProperty('error');
      const error = (outcome as { error: ApiError }).error;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.message).toBe('Invalid or expired access token');
    }
    expect(looked).toEqual([]);
  });

  it('a token it remembered is refused once it expires, and a changed byte is never taken for it', async () => {
    const token = forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: now + 30 });
    expect(await authenticate(token)).toMatchObject({ user: { userId: user.id } });
    expect(await authenticate(token)).toMatchObject({ user: { userId: user.id } });
    const tampered = changeOneSignatureCharacter(token);
    expect(await authenticate(tampered)).toHaveProperty('fail');
    vi.useFakeTimers({ now: (now + 31) * 1000 });
    try {
      expect(await authenticate(token)).toHaveProperty('fail');
    } finally {
      vi.useRealTimers();
    }
    // Every success still asked the database: only the signature check is remembered.
    expect(looked).toEqual(['s-1', 's-1']);
  });

  it('refuses a valid token whose session the database no longer has, or that names another user', async () => {
    const { token } = tokens.sign(user, 's-1', now);
    facts = null;
    expect(await authenticate(token)).toMatchObject({ error: { message: 'Session has ended; sign in again' } });
    facts = { userId: '11111111-1111-4111-8111-111111111111', email: 'x@example.com', role: 'merchant' } as CallerFacts;
    expect(await authenticate(token)).toMatchObject({ error: { message: 'Session has ended; sign in again' } });
  });
});

/**
 * Changes one character well inside the signature. Not the last one: the last character of a
 * base64url HS256 signature also carries two unused bits, so changing it may decode to the
 * same bytes and leave the signature valid.
 */
function changeOneSignatureCharacter(token: string): string {
  const at = token.length - 10;
  return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
}
