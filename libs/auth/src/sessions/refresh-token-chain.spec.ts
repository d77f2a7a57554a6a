import { randomBytes } from 'node:crypto';
import { hashToken, randomToken, type DatabaseConfig } from '@app/core';
import { childRefreshToken, RefreshTokenChain } from './refresh-token-chain.js';

describe('RefreshTokenChain', () => {
  const key = randomBytes(32);
  const chain = new RefreshTokenChain({ requestBindingKey: key } as DatabaseConfig);

  it('derives each child from its parent and the key alone, shaped like a random token', () => {
    const token = randomToken(32);
    const child = chain.child(token);
    expect(child).toBe(chain.child(token));
    expect(child).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(child).not.toBe(token);
    expect(child).not.toBe(childRefreshToken(randomBytes(32), token));
    expect(child).not.toBe(chain.child(randomToken(32)));
  });

  it('recomputes the token some rotations later, and only when its stored hash matches', () => {
    const token = randomToken(32);
    const third = chain.child(chain.child(chain.child(token)));
    expect(chain.descendant(token, 3, hashToken(third))).toBe(third);
    expect(chain.descendant(token, 2, hashToken(third))).toBeNull();
    // A child made at random (before tokens were derived) is not recomputed.
    expect(chain.descendant(token, 1, hashToken(randomToken(32)))).toBeNull();
  });

  it('refuses to derive without the installation key', () => {
    expect(() => new RefreshTokenChain({} as DatabaseConfig).child('token')).toThrow(/installation key/);
  });
});
