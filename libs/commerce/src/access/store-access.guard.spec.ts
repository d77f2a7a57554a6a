import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError, type UserPrincipal } from '@app/core';
import type { StoreAccess } from './store-access.js';
import { StoreAccessGuard, type StoreAccessRule } from './store-access.guard.js';
import type { StoreAccessService } from './store-access.service.js';

const STORE = '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11';
const user: UserPrincipal = { kind: 'user', userId: 'u1', email: 'u@example.com', role: 'team_member', sessionId: 's1' };

function context(request: Record<string, unknown>): ExecutionContext {
  return { getHandler: () => () => undefined, switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}

async function outcome(
  rule: StoreAccessRule,
  access: StoreAccess | null,
  request: Record<string, unknown> = { params: { store_id: STORE } },
) {
  const reflector = { get: () => rule } as unknown as Reflector;
  const service = { resolve: async () => access } as unknown as StoreAccessService;
  try {
    await new StoreAccessGuard(reflector, service).canActivate(context({ principal: user, ...request }));
    return 'allowed';
  } catch (error) {
    return (error as ApiError).code;
  }
}

const member = (permissions: StoreAccess['permissions']): StoreAccess => ({ storeId: STORE, relation: 'member', permissions });

describe('StoreAccessGuard', () => {
  it('hides stores the caller has no relation to (404)', async () => {
    expect(await outcome({ from: 'param', need: 'read' }, null)).toBe('NOT_FOUND');
  });

  it('refuses a malformed store id with 400 before any lookup', async () => {
    expect(await outcome({ from: 'param', need: 'read' }, member([]), { params: { store_id: 'abc' } })).toBe('VALIDATION_FAILED');
  });

  it('checks permissions for members and keeps manage for owners', async () => {
    expect(await outcome({ from: 'param', need: 'catalog' }, member(['catalog']))).toBe('allowed');
    expect(await outcome({ from: 'param', need: 'orders' }, member(['catalog']))).toBe('FORBIDDEN');
    expect(await outcome({ from: 'param', need: 'manage' }, member(['catalog', 'orders']))).toBe('FORBIDDEN');
    expect(await outcome({ from: 'param', need: 'manage' }, { storeId: STORE, relation: 'owner', permissions: [] })).toBe('allowed');
  });

  it('lets customers read only where the rule allows them', async () => {
    const customer: StoreAccess = { storeId: STORE, relation: 'customer', permissions: [] };
    expect(await outcome({ from: 'param', need: 'read' }, customer)).toBe('allowed');
    expect(await outcome({ from: 'param', need: 'read', customers: false }, customer)).toBe('FORBIDDEN');
    expect(await outcome({ from: 'param', need: 'catalog' }, customer)).toBe('FORBIDDEN');
  });

  it('reads the store id from the body or the query when told to', async () => {
    expect(await outcome({ from: 'body', need: 'read' }, member([]), { body: { store_id: STORE } })).toBe('allowed');
    expect(await outcome({ from: 'query', need: 'read' }, member([]), { query: {} })).toBe('VALIDATION_FAILED');
  });
});
