import { randomBytes } from 'node:crypto';
import { hashToken, randomToken, type RuntimeConfig } from '@app/core';
import { childRefreshToken, refreshChainKey, RefreshTokenChain } from './refresh-token-chain.js';

const chainOf = (encryptionKey: Buffer, requestBindingKey = randomBytes(32)) =>
  new RefreshTokenChain({ encryptionKey, requestBindingKey } as unknown as RuntimeConfig);

describe('RefreshTokenChain', () => {
  const encryptionKey = randomBytes(32);
  const chain = chainOf(encryptionKey);

  it('derives each child from its parent and the key alone, shaped like a random token', () => {
    const token = randomToken(32);
    const child = chain.child(token);
    expect(child).toBe(chain.child(token));
    expect(child).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(child).not.toBe(token);
    expect(child).not.toBe(childRefreshToken(randomBytes(32), token));
    expect(child).not.toBe(chain.child(randomToken(32)));
  });

  it('keys the chain with a derivation of ENCRYPTION_KEY, not with the request-binding key the database keeps', () => {
    const token = randomToken(32);
    const bindingKey = randomBytes(32);
    const child = chainOf(encryptionKey, bindingKey).child(token);
    // The same ENCRYPTION_KEY with another binding key: the same child. Another ENCRYPTION_KEY: another child.
    expect(chainOf(encryptionKey, randomBytes(32)).child(token)).toBe(child);
    expect(chainOf(randomBytes(32), bindingKey).child(token)).not.toBe(child);
    // Neither the binding key nor ENCRYPTION_KEY itself is the chain's key: a purpose-specific derivation is.
    expect(childRefreshToken(bindingKey, token)).not.toBe(child);
    expect(childRefreshToken(encryptionKey, token)).not.toBe(child);
    expect(childRefreshToken(refreshChainKey(encryptionKey), token)).toBe(child);
  });

  it('recomputes the token some rotations later, and only when its stored hash matches', () => {
    const token = randomToken(32);
    const third = chain.child(chain.child(chain.child(token)));
    expect(chain.descendant(token, 3, hashToken(third))).toBe(third);
    expect(chain.descendant(token, 2, hashToken(third))).toBeNull();
    // A child made at random (before tokens were derived) is not recomputed.
    expect(chain.descendant(token, 1, hashToken(randomToken(32)))).toBeNull();
  });

  it('refuses to derive without ENCRYPTION_KEY', () => {
    const unset = {
      get encryptionKey(): Buffer {
        throw new Error('ENCRYPTION_KEY is unset');
      },
    };
    expect(() => new RefreshTokenChain(unset as RuntimeConfig).child('token')).toThrow(/ENCRYPTION_KEY/);
  });
});
