import type { FastifyRequest } from 'fastify';
import { readCredentials } from './credentials.js';

const PUBLIC_KEY = 'public-key-0123456789';
const request = (headers: Record<string, string>) =>
  ({ url: '/functions/v1/stores', headers }) as unknown as FastifyRequest;

describe('readCredentials', () => {
  it('tells a store key (sk_…) from a user token and from the public key', () => {
    const secret = `sk_${'a'.repeat(43)}`;
    expect(readCredentials(request({ authorization: `Bearer ${secret}` }), PUBLIC_KEY)).toEqual({
      kind: 'store_key',
      secret,
    });
    expect(readCredentials(request({ authorization: 'Bearer eyJhbGciOi.x.y' }), PUBLIC_KEY)).toEqual({
      kind: 'token',
      token: 'eyJhbGciOi.x.y',
    });
    expect(readCredentials(request({ authorization: `Bearer ${PUBLIC_KEY}` }), PUBLIC_KEY)).toEqual({
      kind: 'public_key',
    });
  });

  it('refuses a wrong apikey beside a store key', () => {
    expect(() =>
      readCredentials(request({ authorization: `Bearer sk_${'a'.repeat(43)}`, apikey: 'wrong' }), PUBLIC_KEY),
    ).toThrow('Invalid API key');
  });
});
