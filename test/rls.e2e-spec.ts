import { DataSource } from 'typeorm';
import { enterTenantContext, RLS_ROLE } from '@app/core';
import { merchantWithStore, signUp, startApp, type TestApp } from './support/app.js';

/**
 * Row-level security is the net under the guards: a query issued with no tenant filter at all,
 * in a transaction bound to a user the way every request's is, still sees only that user's rows.
 */
describe('row-level security', () => {
  let api: TestApp;
  let dataSource: DataSource;
  let a: Awaited<ReturnType<typeof merchantWithStore>>;
  let b: Awaited<ReturnType<typeof merchantWithStore>>;

  beforeAll(async () => {
    api = await startApp();
    dataSource = api.app.get(DataSource);
    a = await merchantWithStore(api, 'Tenant A');
    b = await merchantWithStore(api, 'Tenant B');
    const invite = await api.request('POST', `/functions/v1/stores/${b.storeId}/members`, {
      token: b.token,
      body: { email: 'rls-member@example.com', permissions: [] },
    });
    expect(invite.status).toBe(201);
  });
  afterAll(() => api.close());

  /** Runs `work` in a transaction bound to the user, as TenantTransactionInterceptor does for requests. */
  function asUser<T>(
    userId: string,
    role: 'merchant' | 'admin',
    work: (query: (sql: string, params?: unknown[]) => Promise<any>) => Promise<T>,
  ) {
    return dataSource.transaction(async (manager) => {
      await enterTenantContext(manager, { userId, role });
      return work((sql, params) => manager.query(sql, params));
    });
  }

  it('switches to a role that cannot bypass RLS', async () => {
    const [row] = await asUser(a.session.user.id, 'merchant', (q) =>
      q(`SELECT current_user AS name, (SELECT rolbypassrls FROM pg_roles WHERE rolname = current_user) AS bypass`),
    );
    expect(row).toEqual({ name: RLS_ROLE, bypass: false });
  });

  it('an unfiltered SELECT sees only the tenant’s own stores', async () => {
    const ids = await asUser(a.session.user.id, 'merchant', (q) => q('SELECT id FROM stores'));
    expect(ids.map((r: { id: string }) => r.id)).toEqual([a.storeId]);
    const direct = await asUser(a.session.user.id, 'merchant', (q) => q('SELECT id FROM stores WHERE id = $1', [b.storeId]));
    expect(direct).toEqual([]);
  });

  it('another tenant’s rows cannot be changed or deleted, nor members read', async () => {
    const updated = await asUser(a.session.user.id, 'merchant', (q) =>
      q(`UPDATE stores SET name = 'hijacked' WHERE id = $1 RETURNING id`, [b.storeId]),
    );
    expect(updated[0]).toEqual([]);
    const deleted = await asUser(a.session.user.id, 'merchant', (q) => q(`DELETE FROM stores WHERE id = $1 RETURNING id`, [b.storeId]));
    expect(deleted[0]).toEqual([]);
    const members = await asUser(a.session.user.id, 'merchant', (q) => q('SELECT id FROM store_members'));
    expect(members).toEqual([]);
    const [store] = await dataSource.query('SELECT name FROM stores WHERE id = $1', [b.storeId]);
    expect(store.name).toBe('Tenant B');
  });

  it('a store cannot be created in another owner’s name, nor a member added to another’s store', async () => {
    await expect(
      asUser(a.session.user.id, 'merchant', (q) => q(`INSERT INTO stores (owner_id, name) VALUES ($1, 'forged')`, [b.session.user.id])),
    ).rejects.toThrow(/row-level security/);
    await expect(
      asUser(a.session.user.id, 'merchant', (q) =>
        q(`INSERT INTO store_members (store_id, email) VALUES ($1, 'x@example.com')`, [b.storeId]),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  it('users see only themselves; sessions and refresh tokens are closed to the request role', async () => {
    const users = await asUser(a.session.user.id, 'merchant', (q) => q('SELECT id FROM users'));
    expect(users).toEqual([{ id: a.session.user.id }]);
    await expect(asUser(a.session.user.id, 'merchant', (q) => q('SELECT 1 FROM auth_refresh_tokens'))).rejects.toThrow(/permission denied/);
  });

  it('a temporary table cannot shadow what the SECURITY DEFINER helpers read', async () => {
    const ids = await asUser(a.session.user.id, 'merchant', async (q) => {
      await q('CREATE TEMP TABLE stores (id uuid, owner_id uuid) ON COMMIT DROP');
      await q('INSERT INTO pg_temp.stores VALUES ($1, $2)', [b.storeId, a.session.user.id]);
      return q('SELECT unnest(app_accessible_store_ids()) AS id');
    });
    expect(ids.map((r: { id: string }) => r.id)).toEqual([a.storeId]);
  });

  it('an admin sees every store', async () => {
    const admin = await signUp(api);
    const ids = (await asUser(admin.user.id, 'admin', (q) => q('SELECT id FROM stores'))).map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining([a.storeId, b.storeId]));
  });

  it('with no user bound, nothing is visible', async () => {
    const rows = await dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('role', $1, true)`, [RLS_ROLE]);
      return manager.query('SELECT id FROM stores');
    });
    expect(rows).toEqual([]);
  });
});
