import { Subject } from 'rxjs';
import type { IEvent } from '@nestjs/cqrs';
import { storeEventsFor, type StoreEventBatch } from './store-event-subscribers.js';
import { StoreEvent } from './store-event.js';

const envelope = (id: string, event: string) => ({
  id,
  event,
  created_at: '2026-11-26T10:00:00.000Z',
  store_id: 'store',
  data: {},
});

describe('storeEventsFor', () => {
  it("hands each publishing call's events over as one batch, with the publications to acknowledge", async () => {
    const bus = new Subject<IEvent>();
    const batches: StoreEventBatch<'inventory.updated'>[] = [];
    bus
      .pipe(storeEventsFor({ name: 'notifications', events: ['inventory.updated'] }))
      .subscribe((batch) => batches.push(batch));

    // One call: a claim's events (one kind the subscriber ignores), and a republication for it of an older publication.
    bus.next(new StoreEvent(envelope('a', 'inventory.updated'), 'p1'));
    bus.next(new StoreEvent(envelope('b', 'order.paid'), 'p1'));
    bus.next(new StoreEvent(envelope('c', 'inventory.updated'), 'p1'));
    bus.next(new StoreEvent(envelope('d', 'inventory.updated'), 'p0', ['notifications']));
    // A republication for another subscriber only.
    bus.next(new StoreEvent(envelope('e', 'inventory.updated'), 'p9', ['webhooks']));
    await Promise.resolve();
    // A later call is a batch of its own.
    bus.next(new StoreEvent(envelope('f', 'inventory.updated'), 'p2'));
    await Promise.resolve();

    expect(batches.map((batch) => [batch.envelopes.map((e) => e.id), batch.publications])).toEqual([
      [
        ['a', 'c', 'd'],
        ['p1', 'p0'],
      ],
      [['f'], ['p2']],
    ]);
  });
});
