import { DataSource } from 'typeorm';
import { merchantWithStore, startApp, type HttpResult, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/**
 * Cursor pages lose nothing when rows share a creation time: rows written in one transaction get
 * the same `now()`, which PostgreSQL keeps in microseconds while cursors carry milliseconds.
 */
describe('cursor pagination', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  it('pages through products created in one statement, one per page, each exactly once', async () => {
    const { token, storeId } = await merchantWithStore(api, 'Bulk');
    const db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    const inserted = (await db.query(
      `INSERT INTO products (store_id, name, price) SELECT $1, ` +
        `'Bulk ' || n, 1 FROM generate_series(1, 5) n RETURNING id`,
      [storeId],
    )) as { id: string }[];
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const result: HttpResult = await api.request(
        'GET',
        `/functions/v1/stores/${storeId}/products?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { token },
      );
      expect(result.status).toBe(200);
      seen.push(...result.body.data.map((product: { id: string }) => product.id));
      cursor = result.body.next_cursor;
      if (!cursor) break;
    }
    expect(seen.sort()).toEqual(inserted.map((row) => row.id).sort());
  });
});
