/**
 * Test support (not built into dist): runs the real StoreAccessGuard without an app, on the facts
 * the JWT strategy's caller lookup would have put on the request. Specs use it to check a route's own
 * `@StoreScoped` rule, read from the controller method's metadata, and to obtain the `StoreAccess`
 * the guard would hand the handler.
 */
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error.js';
import type { CallerFacts } from '../tenancy/caller-lookup.js';
import type { UserPrincipal } from '../tenancy/principal.js';
import type { StoreAccess } from '../tenancy/store-access.js';
import { StoreAccessGuard, type StoreAccessRule } from '../tenancy/store-access.guard.js';
import { STORE_LOCATION_KEY } from '../tenancy/store-location.js';

export const STORE_A = '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11';
export const STORE_B = '7a2d1c2f-3e5b-4d2c-8a68-2a1f9a7c9b22';

/** What the caller lookup returns about a caller: by default a team member of STORE_A with no permissions. */
export function callerFacts(overrides: Partial<CallerFacts> = {}): CallerFacts {
  return {
    userId: 'u1',
    email: 'u1@example.com',
    role: 'team_member',
    storeId: STORE_A,
    relation: 'member',
    permissions: [],
    recordOwner: null,
    storeCount: null,
    ...overrides,
  };
}

/** The `@StoreScoped` rule of a controller method; throws when the route has none. */
export function routeRule(method: (...args: any[]) => unknown): StoreAccessRule {
  const rule = new Reflector().get<StoreAccessRule | undefined>(STORE_LOCATION_KEY, method);
  if (!rule) throw new Error(`${method.name} has no @StoreScoped rule`);
  return rule;
}

export type Verdict = { outcome: 'allowed'; access: StoreAccess } | { outcome: string; access?: undefined };

/**
 * The guard's verdict on a request: `allowed` with the access it resolved, or the refusal's error
 * code (`NOT_FOUND`, `FORBIDDEN`, `VALIDATION_FAILED`). `route` is a controller method (its own rule)
 * or a rule; `facts` undefined means the lookup found no relation at all.
 */
export function judgeStoreAccess(
  route: StoreAccessRule | ((...args: any[]) => unknown),
  facts: CallerFacts | undefined,
  request: Record<string, unknown> = { params: { store_id: STORE_A } },
): Verdict {
  const rule = typeof route === 'function' ? routeRule(route) : route;
  const handler = () => undefined;
  Reflect.defineMetadata(STORE_LOCATION_KEY, rule, handler);
  const principal: UserPrincipal = {
    kind: 'user',
    userId: facts?.userId ?? 'u1',
    email: facts?.email ?? 'u1@example.com',
    role: facts?.role ?? 'team_member',
    sessionId: 's1',
  };
  const fastifyRequest: Record<string, unknown> = { principal, callerFacts: facts, ...request };
  const context = {
    getHandler: () => handler,
    switchToHttp: () => ({ getRequest: () => fastifyRequest }),
  } as unknown as ExecutionContext;
  try {
    new StoreAccessGuard(new Reflector()).canActivate(context);
  } catch (error) {
    if (error instanceof ApiError) return { outcome: error.code };
    throw error;
  }
  return { outcome: 'allowed', access: fastifyRequest.storeAccess as StoreAccess };
}

/** The access the guard grants, or a test failure naming the refusal. */
export function grantedAccess(...args: Parameters<typeof judgeStoreAccess>): StoreAccess {
  const verdict = judgeStoreAccess(...args);
  if (verdict.outcome !== 'allowed')
    throw new Error(`expected the guard to allow the request, it answered ${verdict.outcome}`);
  return verdict.access!;
}

/** The ApiError a promise is refused with; fails when it resolves or throws anything else. */
export async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused, it succeeded');
}
