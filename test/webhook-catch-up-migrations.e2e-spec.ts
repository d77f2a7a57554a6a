import { REQUEST_ROLE } from '@app/core';
import { SkippedDeliveries1763802400000, StoreEventReads1763802400100 } from '@app/webhooks';
import { merchantWithStore } from './support/app.js';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

/**
 * The catch-up migrations revert and apply again: `skipped` deliveries become cancelled ones (which
 * `recover` sent before) when the status goes, and the outbox's read grant, policy and index go and
 * come back.
 */
describe('migrations: skipped deliveries and store event reads', () => {
  let db: MigratedDatabase;
  let webhookId: string;
  let storeId: string;
  const insertDelivery = (status: string) =>
    db.client.query(
      `INSERT INTO webhook_deliveries (webhook_id, store_id, event_id, event, body, status, next_attempt_at)
       VALUES ($1, $2, gen_random_uuid(), 'order.paid', '{}', $3, NULL) RETURNING id`,
      [webhookId, storeId, status],
    );

  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_ALLOW_HTTP: 'true' };
    // A store with a webhook, made through the app before it is closed.
    db = await migratedDatabase('catch_up_migrations', {
      env,
      prepare: async (api) => {
        const merchant = await merchantWithStore(api, 'Migrated store');
        storeId = merchant.storeId;
        const registered = await api.request('POST', '/functions/v1/webhooks/register', {
          token: merchant.token,
          body: { store_id: storeId, url: 'http://127.0.0.1:9/hook', events: ['order.paid'] },
        });
        webhookId = registered.body.webhook.id;
      },
    });
  });
  afterAll(() => db?.close());

  it('down turns skipped deliveries into cancelled ones and refuses the status; up accepts it again', async () => {
    const { rows } = await insertDelivery('skipped');
    await db.step(new SkippedDeliveries1763802400000(), 'down');
    const after = await db.client.query('SELECT status FROM webhook_deliveries WHERE id = $1', [rows[0].id]);
    expect(after.rows).toEqual([{ status: 'cancelled' }]);
    await expect(insertDelivery('skipped')).rejects.toThrow(/webhook_deliveries_status_check/);
    await db.step(new SkippedDeliveries1763802400000(), 'up');
    expect((await insertDelivery('skipped')).rowCount).toBe(1);
    await expect(insertDelivery('lost')).rejects.toThrow(/webhook_deliveries_status_check/);
  });

  it("down takes away the requests' read of the outbox, its policy and index; up gives them back", async () => {
    const state = async () => {
      const { rows } = await db.client.query(
        `SELECT has_column_privilege($1, 'outbox_events', 'data', 'SELECT') AS data,
                has_column_privilege($1, 'outbox_events', 'dispatched_at', 'SELECT') AS dispatched_at,
                EXISTS (SELECT 1 FROM pg_policies
                         WHERE tablename = 'outbox_events' AND policyname = 'outbox_events_read') AS policy,
                EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'outbox_events_store_idx') AS index`,
        [REQUEST_ROLE],
      );
      return rows[0];
    };
    expect(await state()).toEqual({ data: true, dispatched_at: false, policy: true, index: true });
    await db.step(new StoreEventReads1763802400100(), 'down');
    expect(await state()).toEqual({ data: false, dispatched_at: false, policy: false, index: false });
    await db.step(new StoreEventReads1763802400100(), 'up');
    expect(await state()).toEqual({ data: true, dispatched_at: false, policy: true, index: true });
  });
});
