import { createHash } from 'node:crypto';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerGuard, type ThrottlerStorage } from '@nestjs/throttler';
import { AppThrottlerGuard } from './app-throttler.guard.js';

class ProductsController {
  list(): void {}
}

/** A guard's protected generateKey, called as the library calls it. */
function keyOf(guard: ThrottlerGuard, context: ExecutionContext, tracker: string, name: string): string {
  return (guard as unknown as { generateKey(c: ExecutionContext, s: string, n: string): string }).generateKey(
    context,
    tracker,
    name,
  );
}

describe('AppThrottlerGuard keys', () => {
  const context = {
    getClass: () => ProductsController,
    getHandler: () => ProductsController.prototype.list,
  } as unknown as ExecutionContext;
  const storage = {} as ThrottlerStorage;

  it.each([
    ['default', 'user:7d1f5c0e-2b1a-4c55-9a55-7f0c2f1c9b11'],
    ['signup', 'ip:203.0.113.9'],
    ['default', 'api_key:ü-ß'],
  ])('are the library’s own for %s / %s, so the counts in Redis keep their keys', (name, tracker) => {
    const library = keyOf(new ThrottlerGuard([], storage, new Reflector()), context, tracker, name);
    const ours = keyOf(new AppThrottlerGuard([], storage, new Reflector()), context, tracker, name);
    expect(ours).toBe(library);
    expect(ours).toBe(createHash('sha256').update(`ProductsController-list-${name}-${tracker}`).digest('hex'));
  });

  it('are the same when remembered', () => {
    const guard = new AppThrottlerGuard([], storage, new Reflector());
    const first = ['a', 'b', 'a'].map((tracker) => keyOf(guard, context, `user:${tracker}`, 'default'));
    expect(first[2]).toBe(first[0]);
    expect(first[1]).not.toBe(first[0]);
    expect(keyOf(guard, context, 'user:a', 'signup')).not.toBe(first[0]);
  });
});
