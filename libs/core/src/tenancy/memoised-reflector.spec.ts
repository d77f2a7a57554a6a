import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACCESS_KEY } from './route-access.decorator.js';
import { MemoisedReflector } from './memoised-reflector.js';
import { STORE_LOCATION_KEY } from './store-location.js';

const LIBS = fileURLToPath(new URL('../../../', import.meta.url));

/** The keys the global guards and the throttler read, whether a route sets them or not. */
const GUARD_KEYS = [
  ACCESS_KEY,
  STORE_LOCATION_KEY,
  'storefront:own-transactions',
  'storefront:roles',
  ...['default', 'signup'].flatMap((name) =>
    ['SKIP', 'LIMIT', 'TTL', 'BLOCK_DURATION', 'TRACKER', 'KEY_GENERATOR'].map((key) => `THROTTLER:${key}${name}`),
  ),
];

/** Every controller class of the app, with its handlers. */
async function controllers(): Promise<{ controller: Function; handlers: Function[] }[]> {
  const files = fs
    .readdirSync(LIBS, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.controller.ts'))
    .sort();
  const found: { controller: Function; handlers: Function[] }[] = [];
  for (const file of files) {
    const module = (await import(path.join(LIBS, file))) as Record<string, unknown>;
    for (const controller of Object.values(module)) {
      if (typeof controller !== 'function' || Reflect.getMetadata('path', controller) === undefined) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      const handlers = Object.getOwnPropertyNames(prototype)
        .filter((name) => name !== 'constructor' && typeof prototype[name] === 'function')
        .map((name) => prototype[name] as Function)
        .filter((handler) => Reflect.getMetadata('method', handler) !== undefined);
      found.push({ controller, handlers });
    }
  }
  return found;
}

describe('MemoisedReflector', () => {
  it('answers as a fresh lookup for every route of the app, every key it has and those the guards read', async () => {
    const routes = await controllers();
    expect(routes.length).toBeGreaterThan(10);
    const fresh = new Reflector();
    const memo = new MemoisedReflector();
    let compared = 0;
    for (const { controller, handlers } of routes) {
      expect(handlers.length).toBeGreaterThan(0);
      for (const handler of handlers) {
        for (const target of [handler, controller]) {
          const keys = new Set<unknown>([...(Reflect.getMetadataKeys(target) as unknown[]), ...GUARD_KEYS]);
          for (const key of keys) {
            // Twice: the second answer is the kept one.
            expect(memo.get(key, target)).toBe(fresh.get(key, target));
            expect(memo.get(key, target)).toBe(fresh.get(key, target));
            compared++;
          }
        }
        for (const key of GUARD_KEYS) {
          expect(memo.getAllAndOverride(key, [handler, controller])).toBe(
            fresh.getAllAndOverride(key, [handler, controller]),
          );
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('asks its source once per key and target, an absent value included', () => {
    const source = new Reflector();
    const asked = vi.spyOn(source, 'get');
    const memo = new MemoisedReflector(source);
    @SetMetadata('rule', 'class')
    class First {
      @SetMetadata('rule', 'handler')
      handle(): void {}
    }
    // The same handler under another class: its class's value is its own.
    @SetMetadata('rule', 'other class')
    class Second {}
    const handler = First.prototype.handle;
    for (let i = 0; i < 3; i++) {
      expect(memo.get('rule', handler)).toBe('handler');
      expect(memo.get('none', handler)).toBeUndefined();
      expect(memo.getAllAndOverride('none', [handler, First])).toBeUndefined();
      expect(memo.getAllAndOverride('rule', [First, handler])).toBe('class');
      expect(memo.getAllAndOverride('rule', [Second, handler])).toBe('other class');
    }
    expect(asked.mock.calls.map(([key, target]) => [key, target])).toEqual([
      ['rule', handler],
      ['none', handler],
      ['none', First],
      ['rule', First],
      ['rule', Second],
    ]);
  });
});
