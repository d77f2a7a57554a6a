import { createHmac } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { loadConfig } from '@app/core';
import { AccessTokenService, accessTokenJwtOptions } from './access-token.service.js';

const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'unit-test-secret-0123456789-0123456789' });
const tokens = new AccessTokenService(new JwtService(accessTokenJwtOptions(config)), config);
const user = { id: '0b8c7b8e-5d0e-4a43-9a53-2f4b1b0c1a11', email: 'owner@example.com', role: 'merchant' as const };

/** A token with any header and claims, signed HS-style with any secret. */
function forge(header: object, claims: object, secret = config.jwtSecret, digest = 'sha256'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part(header)}.${part(claims)}`;
  return `${unsigned}.${createHmac(digest, secret).update(unsigned).digest('base64url')}`;
}

describe('AccessTokenService', () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: user.id, email: user.email, role: 'merchant', aud: 'authenticated', iat: now, exp: now + 60, session_id: 's-1' };

  it('verifies what it signs, as HS256 for the configured audience', () => {
    const { token, expiresAt } = tokens.sign(user, 's-1', now);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    expect(expiresAt).toBe(now + 3600);
    expect(tokens.verify(token)).toEqual({ kind: 'user', userId: user.id, email: user.email, role: 'merchant', sessionId: 's-1' });
    expect(tokens.verify(forge({ alg: 'HS256', typ: 'JWT' }, claims))).toMatchObject({ userId: user.id });
  });

  it.each([
    ['another secret', forge({ alg: 'HS256', typ: 'JWT' }, claims, 'some-other-secret-0123456789-0123456789')],
    ['another audience', forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, aud: 'service_role' })],
    ['HS512 with the right secret', forge({ alg: 'HS512', typ: 'JWT' }, claims, config.jwtSecret, 'sha512')],
    ['alg none', `${forge({ alg: 'none', typ: 'JWT' }, claims).split('.').slice(0, 2).join('.')}.`],
    ['an expired token', forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: now - 1 })],
    ['an unknown role', forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, role: 'root' })],
  ])('refuses a token with %s', (_label, token) => {
    expect(tokens.verify(token)).toBeNull();
  });

  it('a token it remembered is refused once it expires, and a changed byte is never taken for it', () => {
    const token = forge({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: now + 30 });
    expect(tokens.verify(token)).toMatchObject({ userId: user.id });
    const tampered = `${token.slice(0, -2)}${token.endsWith('A') ? 'B' : 'A'}${token.slice(-1)}`;
    expect(tokens.verify(tampered)).toBeNull();
    vi.useFakeTimers({ now: (now + 31) * 1000 });
    try {
      expect(tokens.verify(token)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
