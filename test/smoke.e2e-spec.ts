import { merchantWithStore, startApp, type TestApp } from './support/app.js';

describe('smoke', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp();
  });
  afterAll(() => api.close());

  it('creates a store', async () => {
    const { token, storeId } = await merchantWithStore(api);
    const got = await api.request('GET', `/functions/v1/stores/${storeId}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.store.id).toBe(storeId);
  });
});
