import { randomUUID } from 'node:crypto';
import { OutboxOwedAcknowledgements1763801800000 } from '../libs/core/src/database/migrations/1763801800000-outbox-owed-acknowledgements.js';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

/**
 * The move from one acknowledgement row per event (and a deadline on the event) to one owed row per
 * publication and subscriber keeps what was owed, both ways: an event a subscriber had not
 * acknowledged is owed by it after the migration, with its deadline and publication count, and
 * `down` gives the old tables the same debts back.
 */
describe('migration: owed acknowledgements', () => {
  let db: MigratedDatabase;
  const migration = new OutboxOwedAcknowledgements1763801800000();
  const step = (direction: 'up' | 'down') => db.step(migration, direction);
  const storeId = randomUUID();

  beforeAll(async () => {
    db = await migratedDatabase('owed_migration');
  });
  afterAll(() => db?.close());

  const event = async (kind: string, deadline: string | null, publications: number, acks: string[]) => {
    const { rows } = await db.client.query<{ id: string }>(
      `INSERT INTO outbox_events (store_id, event, data, dispatched_at, republish_at, publications)
       VALUES ($1, $2, '{}', now(), $3::timestamptz, $4) RETURNING id`,
      [storeId, kind, deadline, publications],
    );
    for (const subscriber of acks)
      await db.client.query('INSERT INTO outbox_acks (event_id, subscriber) VALUES ($1, $2)', [rows[0].id, subscriber]);
    return rows[0].id;
  };

  it('carries every debt over to one owed row per subscriber, and back, run as the owner role', async () => {
    await step('down');
    const deadline = '2026-11-26T12:00:00.000Z';
    const customer = await event('customer.created', deadline, 1, []);
    const notificationsOwe = await event('inventory.updated', deadline, 2, ['webhooks']);
    const bothOwe = await event('inventory.updated', deadline, 3, []);
    const done = await event('inventory.updated', null, 1, ['notifications', 'webhooks']);

    await step('up');

    type Owed = { event_id: string; subscriber: string; publications: number; due_at: Date };
    const { rows: owed } = await db.client.query<Owed>(
      `SELECT o.event_ids[1] AS event_id, o.subscriber, o.publications, o.due_at
         FROM outbox_owed_acks o ORDER BY o.event_ids[1], o.subscriber`,
    );
    const expected = [
      [customer, 'webhooks', 1],
      [notificationsOwe, 'notifications', 2],
      [bothOwe, 'notifications', 3],
      [bothOwe, 'webhooks', 3],
    ].sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`));
    expect(owed.map((row) => [row.event_id, row.subscriber, row.publications])).toEqual(expected);
    expect(owed.every((row) => row.due_at.toISOString() === deadline)).toBe(true);
    expect(owed.map((row) => row.event_id)).not.toContain(done);
    const { rows: tables } = await db.client.query(`SELECT to_regclass('outbox_acks') AS acks`);
    expect(tables).toEqual([{ acks: null }]);

    await step('down');

    type Event = { id: string; republish_at: Date | null; publications: number; acks: string[] };
    const { rows: back } = await db.client.query<Event>(
      `SELECT e.id, e.republish_at, e.publications,
              ARRAY(SELECT subscriber FROM outbox_acks a WHERE a.event_id = e.id ORDER BY subscriber) AS acks
         FROM outbox_events e WHERE e.id = ANY ($1::uuid[])`,
      [[customer, notificationsOwe, bothOwe, done]],
    );
    const byId = new Map(back.map((row) => [row.id, row]));
    expect(byId.get(customer)).toMatchObject({ publications: 1, acks: [] });
    expect(byId.get(notificationsOwe)).toMatchObject({ publications: 2, acks: ['webhooks'] });
    expect(byId.get(bothOwe)).toMatchObject({ publications: 3, acks: [] });
    expect(byId.get(done)).toMatchObject({ republish_at: null, acks: [] });
    for (const id of [customer, notificationsOwe, bothOwe]) expect(byId.get(id)!.republish_at!.toISOString()).toBe(deadline);

    await step('up');
  });
});
