import { callerFacts as facts, judgeStoreAccess, STORE_A as STORE } from '../testing/store-access.js';
import type { StoreAccessRule } from './store-access.guard.js';
import { registerStoreResources, storeResource } from './store-resources.js';

// The kinds are each context's (commerce registers `order` for itself); the guard is tested on one of its own.
registerStoreResources({ order: { key: 'order_id', name: 'Order' } });

const ORDER = '2b1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a22';

function outcome(
  rule: StoreAccessRule,
  callerFacts: Parameters<typeof judgeStoreAccess>[1],
  request: Record<string, unknown> = { params: { store_id: STORE } },
) {
  return judgeStoreAccess(rule, callerFacts, request).outcome;
}

describe('StoreAccessGuard', () => {
  it('hides stores the caller has no relation to (404)', () => {
    expect(outcome({ from: 'param', need: 'read' }, facts({ relation: null, storeId: null }))).toBe('NOT_FOUND');
    expect(outcome({ from: 'param', need: 'read' }, undefined)).toBe('NOT_FOUND');
  });

  it('refuses a malformed store id with 400', () => {
    expect(outcome({ from: 'param', need: 'read' }, facts({}), { params: { store_id: 'abc' } })).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('checks permissions for members and keeps manage for owners', () => {
    expect(outcome({ from: 'param', need: 'catalog' }, facts({ permissions: ['catalog'] }))).toBe('allowed');
    expect(outcome({ from: 'param', need: 'orders' }, facts({ permissions: ['catalog'] }))).toBe('FORBIDDEN');
    expect(outcome({ from: 'param', need: 'manage' }, facts({ permissions: ['catalog', 'orders'] }))).toBe('FORBIDDEN');
    expect(outcome({ from: 'param', need: 'manage' }, facts({ relation: 'owner', permissions: null }))).toBe('allowed');
    expect(outcome({ from: 'param', need: 'webhooks' }, facts({ relation: 'admin', permissions: null }))).toBe(
      'allowed',
    );
  });

  it('lets customers read only where the rule allows them, and act only on their own records', () => {
    const customer = facts({ relation: 'customer', permissions: null, role: 'customer' });
    expect(outcome({ from: 'param', need: 'read' }, customer)).toBe('allowed');
    expect(outcome({ from: 'param', need: 'read', customers: false }, customer)).toBe('FORBIDDEN');
    expect(outcome({ from: 'param', need: 'catalog' }, customer)).toBe('FORBIDDEN');
    const order = { params: { order_id: ORDER } };
    expect(outcome({ from: 'order', need: 'orders', self: true }, { ...customer, recordOwner: 'u1' }, order)).toBe(
      'allowed',
    );
    // Another customer's order of the same store: as if it did not exist.
    expect(outcome({ from: 'order', need: 'orders', self: true }, { ...customer, recordOwner: 'u2' }, order)).toBe(
      'NOT_FOUND',
    );
    expect(outcome({ from: 'order', need: 'orders', self: true }, { ...customer, recordOwner: null }, order)).toBe(
      'NOT_FOUND',
    );
  });

  it(
    'reads the store id from the body or the query when told ' +
      'to, and needs exactly one store when it may be left out',
    () => {
      expect(outcome({ from: 'body', need: 'read' }, facts({}), { body: { store_id: STORE } })).toBe('allowed');
      expect(outcome({ from: 'query', need: 'read' }, facts({}), { query: {} })).toBe('VALIDATION_FAILED');
      expect(outcome({ from: 'body', need: 'read', optional: true }, facts({ storeCount: 1 }), { body: {} })).toBe(
        'allowed',
      );
      expect(
        outcome(
          { from: 'body', need: 'read', optional: true },
          facts({ storeCount: 2, storeId: null, relation: null }),
          {
            body: {},
          },
        ),
      ).toBe('VALIDATION_FAILED');
    },
  );

  it(
    "names a record's kind in its 404 as the kind's context " + 'registered it, and refuses a kind nobody registered',
    () => {
      const customer = facts({ relation: 'customer', permissions: null, role: 'customer' });
      const order = { params: { order_id: ORDER } };
      expect(
        judgeStoreAccess({ from: 'order', need: 'orders', self: true }, { ...customer, recordOwner: 'u2' }, order),
      ).toEqual({
        outcome: 'NOT_FOUND',
      });
      expect(storeResource('order')).toEqual({ key: 'order_id', name: 'Order' });
      expect(() => registerStoreResources({ order: { key: 'id', name: 'Order' } })).toThrow(/registered twice/);
      expect(() => storeResource('no_such_kind' as 'order')).toThrow(/not registered/);
    },
  );
});
