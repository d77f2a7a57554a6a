import { EventBus, ofType } from '@nestjs/cqrs';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { OutboxRelay, StoreEvent, type StoreEventEnvelope } from '@app/core';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/** Collects the store events an app's EventBus publishes for one store. */
function collect(api: TestApp, storeId: () => string): StoreEventEnvelope[] {
  const seen: StoreEventEnvelope[] = [];
  api.app
    .get(EventBus)
    .pipe(ofType(StoreEvent))
    .subscribe((event) => {
      if (event.envelope.store_id === storeId()) seen.push(event.envelope);
    });
  return seen;
}

/**
 * The transactional outbox: events are rows committed with their change; a relay publishes them on
 * the EventBus after commit (LISTEN/NOTIFY) and a sweep catches up on anything left undispatched.
 */
describe('outbox relay', () => {
  let api: TestApp;
  let second: TestApp;
  let store: { token: string; storeId: string };
  let seen: StoreEventEnvelope[];
  let seenBySecond: StoreEventEnvelope[];
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  const undispatched = async (storeId: string) =>
    Number(
      (
        await api.app
          .get<DataSource>(SYSTEM_DATA_SOURCE)
          .query('SELECT count(*) FROM outbox_events WHERE store_id = $1 AND dispatched_at IS NULL', [storeId])
      )[0].count,
    );

  beforeAll(async () => {
    // A long sweep interval: what the tests see is the immediate publish or an explicit sweep.
    // A database of their own: a relay publishes every event of its database, and another file's relay
    // on the shared one would take these events.
    database = await createPrivateDatabase('outbox');
    const relaying = { DATABASE_URL: database.url, OUTBOX_RELAY: 'true', OUTBOX_SWEEP_INTERVAL_MS: '600000' };
    api = await startApp(relaying);
    second = await startApp(relaying);
    store = await merchantWithStore(api, 'Outbox store');
    seen = collect(api, () => store.storeId);
    seenBySecond = collect(second, () => store.storeId);
  });
  afterAll(async () => {
    await second?.close();
    await api?.close();
    await database?.drop();
  });

  it(
    'publishes a committed change right after commit, as ' + 'the documented envelope, exactly once across relays',
    async () => {
      const created = await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
        token: store.token,
        body: { name: 'Relayed', price: 3 },
      });
      const all = () => [...seen, ...seenBySecond];
      // A relay publishes a row before it marks it dispatched, and no relay claims a dispatched row:
      // once the store has nothing undispatched, every publish of it has happened.
      await until(async () => (await undispatched(store.storeId)) === 0, 'the store’s events to be dispatched');
      // And each relay has handled every notification it got (stopping awaits that): a second publish would be seen by
      // now.
      for (const app of [api, second]) {
        await app.app.get(OutboxRelay).stop();
        await app.app.get(OutboxRelay).start();
      }
      const published = all().filter((e) => e.data.product_id === created.body.product.id);
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({
        event: 'product.created',
        store_id: store.storeId,
        data: { name: 'Relayed', price: 3 },
      });
      expect(published[0].id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Date(published[0].created_at).toISOString()).toBe(published[0].created_at);
      expect(await undispatched(store.storeId)).toBe(0);
    },
  );

  it('publishes nothing for a change that rolled back', async () => {
    const product = (
      await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
        token: store.token,
        body: { name: 'Scarce', price: 1 },
      })
    ).body.product.id;
    await until(() => seen.concat(seenBySecond).some((e) => e.data.product_id === product), 'product.created');
    const refused = await api.request('POST', `/functions/v1/products/${product}/inventory`, {
      token: store.token,
      body: { delta: -1 },
    });
    expect(refused.status).toBe(409);
    await until(async () => (await undispatched(store.storeId)) === 0, 'the store’s events to be dispatched');
    expect(
      seen.concat(seenBySecond).filter((e) => e.event === 'inventory.updated' && e.data.product_id === product),
    ).toEqual([]);
    const rows = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query(`SELECT 1 FROM outbox_events WHERE event = 'inventory.updated' AND data->>'product_id' = $1`, [product]);
    expect(rows).toEqual([]);
  });

  it('writes no event for a change that fails at commit, after its events were written', async () => {
    // A check the database runs at commit, as the order's is: this one refuses a product named REFUSED, so
    // the create-product handler has inserted the product and appended product.created when it fails.
    const REFUSED = 'Refused at commit';
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`
        CREATE FUNCTION test_refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.name = '${REFUSED}' THEN
            RAISE EXCEPTION 'refused at commit' USING ERRCODE = '23514';
          END IF;
          RETURN NULL;
        END $$`);
      await admin.query(`CREATE CONSTRAINT TRIGGER test_refuse_at_commit AFTER INSERT ON products
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse_at_commit()`);
    } finally {
      await admin.end();
    }
    const path = `/functions/v1/stores/${store.storeId}/products`;
    const create = (name: string) => api.request('POST', path, { token: store.token, body: { name, price: 2 } });
    const events = async (name: string) =>
      api.app
        .get<DataSource>(SYSTEM_DATA_SOURCE)
        .query(`SELECT event FROM outbox_events WHERE store_id = $1 AND data->>'name' = $2`, [store.storeId, name]);

    // Another name commits, with its event: the check is no obstacle to the change itself.
    expect((await create('Accepted at commit')).status).toBe(201);
    expect(await events('Accepted at commit')).toEqual([{ event: 'product.created' }]);
    const refused = await create(REFUSED);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const products = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT id FROM products WHERE store_id = $1 AND name = $2', [store.storeId, REFUSED]);
    expect(products).toEqual([]);
    expect(await events(REFUSED)).toEqual([]);
  });

  it(
    'a commit of more events than one claim takes is published ' + 'at once, by both relays, in claims of at most 200',
    async () => {
      const publications = new Map<string, number>();
      const batch = `batch-${Date.now()}`;
      for (const app of [api, second]) {
        app.app
          .get(EventBus)
          .pipe(ofType(StoreEvent))
          .subscribe((event) => {
            if (event.envelope.data.batch === batch)
              publications.set(event.publication, (publications.get(event.publication) ?? 0) + 1);
          });
      }
      // 450 rows in one transaction: 450 notifications at its commit, to each relay. Nothing sweeps meanwhile (the
      // interval is 10 min).
      await api.app.get<DataSource>(SYSTEM_DATA_SOURCE).query(
        `INSERT INTO outbox_events (store_id, event, data)
       SELECT $1, 'customer.created', jsonb_build_object('batch', $2::text, 'n', n) FROM generate_series(1, 450) AS n`,
        [store.storeId, batch],
      );
      await until(
        async () => (await undispatched(store.storeId)) === 0,
        'every row dispatched without a sweep',
        10_000,
      );
      await until(
        () => [...publications.values()].reduce((sum, count) => sum + count, 0) === 450,
        'every row published',
      );
      expect(Math.max(...publications.values())).toBeLessThanOrEqual(200);
      expect(publications.size).toBeGreaterThanOrEqual(3);
    },
  );

  it('the sweep publishes an event whose immediate publish was lost', async () => {
    await api.app.get(OutboxRelay).stop();
    await second.app.get(OutboxRelay).stop();
    const created = await api.request('POST', `/functions/v1/stores/${store.storeId}/products`, {
      token: store.token,
      body: { name: 'Swept', price: 4 },
    });
    // Both relays stopped (no listener, no timer) before the change committed: nothing can publish it.
    const mine = () => seen.concat(seenBySecond).filter((e) => e.data.product_id === created.body.product.id);
    expect(mine()).toEqual([]);
    expect(await undispatched(store.storeId)).toBe(1);

    expect(await api.app.get(OutboxRelay).sweep()).toBeGreaterThanOrEqual(1);
    expect(mine()).toHaveLength(1);
    expect(mine()[0].event).toBe('product.created');
    expect(await undispatched(store.storeId)).toBe(0);
    // Sweeping again publishes nothing twice.
    await api.app.get(OutboxRelay).sweep();
    expect(mine()).toHaveLength(1);
  });
});
