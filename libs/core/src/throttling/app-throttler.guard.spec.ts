import { createHash } from 'node:crypto';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SkipThrottle, Throttle, ThrottlerGuard, type ThrottlerStorage } from '@nestjs/throttler';
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

describe('AppThrottlerGuard route settings', () => {
  @SkipThrottle({ signup: true })
  class OrdersController {
    @Throttle({ default: { limit: 3, ttl: 5_000 } })
    place(): void {}

    @SkipThrottle()
    health(): void {}
  }
  const contextOf = (handler: () => void) => {
    const request = { ip: '203.0.113.9', url: '/functions/v1/orders', headers: {} };
    const reply = { request, header: () => undefined, headers: () => undefined };
    return {
      getClass: () => OrdersController,
      getHandler: () => handler,
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
    } as unknown as ExecutionContext;
  };

  it('come from the route’s decorators, read once per route rather than on every request', async () => {
    const counted: { limit: number; ttl: number; name: string }[] = [];
    const storage: ThrottlerStorage = {
      increment: async (_key, ttl, limit, _block, name) => {
        counted.push({ limit, ttl, name });
        return { totalHits: 1, timeToExpire: 5, isBlocked: false, timeToBlockExpire: 0 };
      },
    };
    const throttlers = [
      { name: 'default', limit: 100, ttl: 60_000 },
      { name: 'signup', limit: 5, ttl: 60_000 },
    ];
    const guard = new AppThrottlerGuard(throttlers, storage, new Reflector());
    await guard.onModuleInit();
    const lookups = vi.spyOn(Reflect, 'getMetadata');
    await expect(guard.canActivate(contextOf(OrdersController.prototype.place))).resolves.toBe(true);
    const firstRequest = lookups.mock.calls.length;
    await expect(guard.canActivate(contextOf(OrdersController.prototype.place))).resolves.toBe(true);
    await expect(guard.canActivate(contextOf(OrdersController.prototype.health))).resolves.toBe(true);
    const afterwards = lookups.mock.calls.length;
    lookups.mockRestore();
    // The route's own limit and window, twice; signup skipped by the class, everything skipped on health.
    expect(counted).toEqual([
      { limit: 3, ttl: 5_000, name: 'default' },
      { limit: 3, ttl: 5_000, name: 'default' },
    ]);
    expect(firstRequest).toBeGreaterThan(0);
    // The second request of `place` looks nothing up; `health`, a new route, only its own skip settings.
    expect(afterwards - firstRequest).toBeLessThanOrEqual(4);
  });
});
