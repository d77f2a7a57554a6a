import { DataSource } from 'typeorm';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';

describe('products smoke', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  it('creates, adjusts and records events', async () => {
    const { token, storeId } = await merchantWithStore(api);
    const created = await api.request('POST', `/functions/v1/stores/${storeId}/products`, {
      token,
      body: { name: 'Mug', price: 12.5, inventory_quantity: 3, status: 'active' },
    });
    expect(created.status).toBe(201);
    const id = created.body.product.id;
    const adj = await api.request('POST', `/functions/v1/products/${id}/inventory`, { token, body: { delta: -2, reason: 'sold' } });
    expect(adj.body.product.inventory_quantity).toBe(1);
    const tooMany = await api.request('POST', `/functions/v1/products/${id}/inventory`, { token, body: { delta: -2 } });
    expect(tooMany.status).toBe(409);
    const events = await api.app
      .get(DataSource)
      .query('SELECT event, data FROM outbox_events WHERE store_id = $1 ORDER BY created_at', [storeId]);
    expect(events.map((e: { event: string }) => e.event)).toEqual(['product.created', 'inventory.updated']);
  });
});
