import type { Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * A Reflector that looks each (key, decorated class or handler) up once and keeps the answer. The decorators
 * set a route's metadata when its class loads, and nothing changes it after; reflect-metadata, though, walks
 * the target's prototype chain through its registry on every lookup, and the global guards made a dozen such
 * lookups per request. `getAllAndOverride` and the other helpers go through `get`, so they are kept with it.
 */
export class MemoisedReflector extends Reflector {
  private readonly kept = new WeakMap<object, Map<unknown, unknown>>();

  constructor(private readonly source: Reflector = new Reflector()) {
    super();
  }

  override get(metadataKey: unknown, target: Type<unknown> | Function): any {
    let values = this.kept.get(target);
    if (values === undefined) this.kept.set(target, (values = new Map()));
    const value = values.get(metadataKey);
    if (value !== undefined || values.has(metadataKey)) return value;
    const found: unknown = this.source.get(metadataKey, target);
    values.set(metadataKey, found);
    return found;
  }
}
