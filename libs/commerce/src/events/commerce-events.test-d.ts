import type { OutboxService, StoreEventName, StoreEventOf } from '@app/core';
import type { STORE_EVENT_CATALOG } from '@app/webhooks';
import type { CommerceEventPayloads, InventoryEventData, OrderEventData, ProductEventData } from './commerce-events.js';

/**
 * Type-level tests (`npm test` runs them through tsc: the `types` project of vitest.config.ts):
 * publishing is checked against the event catalog, so a wrong name or payload does not compile.
 * Each `@ts-expect-error` fails the run if the line below it ever compiles.
 */
declare const outbox: OutboxService;
declare const order: OrderEventData;
declare const product: ProductEventData;
declare const stock: InventoryEventData;
const store = '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11';

describe('publishing store events is typed by the catalog', () => {
  it('accepts a declared event with its own data', () => {
    expectTypeOf(outbox.append(store, 'order.paid', order)).resolves.toBeVoid();
    expectTypeOf(
      outbox.appendAll(store, [
        { event: 'order.created', data: order },
        { event: 'inventory.updated', data: stock },
      ]),
    ).resolves.toBeVoid();
  });

  it('refuses a name no context declares', () => {
    // @ts-expect-error a misspelt event
    void outbox.append(store, 'order.payed', order);
    // @ts-expect-error an event nobody raises
    void outbox.appendAll(store, [{ event: 'order.teleported', data: order }]);
  });

  it("refuses another event's data, and data missing a field", () => {
    // @ts-expect-error a product's data for an order event
    void outbox.append(store, 'order.paid', product);
    // @ts-expect-error an order's data for inventory.updated, inside a batch
    void outbox.appendAll(store, [{ event: 'inventory.updated', data: order }]);
    const { reason: _reason, ...withoutReason } = stock;
    // @ts-expect-error `reason` is required (null when there is none)
    void outbox.append(store, 'inventory.updated', withoutReason);
  });

  it('every declared name is in the runtime catalog and the other way round', () => {
    expectTypeOf<keyof typeof STORE_EVENT_CATALOG>().toEqualTypeOf<StoreEventName>();
    expectTypeOf<keyof CommerceEventPayloads>().toExtend<StoreEventName>();
    expectTypeOf<StoreEventOf<'product.deleted'>>().toEqualTypeOf<{
      event: 'product.deleted';
      data: ProductEventData;
    }>();
  });
});
