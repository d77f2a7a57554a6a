import { DbScopes, ScopedDb, SystemDb, TenantDb, type UserPrincipal } from '@app/core';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';
import { sessionIdOf } from './support/database.js';

/**
 * Which login a query runs as is chosen at its call site by type: TenantDb (the request role, bound
 * to the caller, row-level security), SystemDb (the service login) or ScopedDb (the caller's own).
 * These check the rules behind the types on the real app: a request's scope never reaches the
 * service login, and each handle refuses to answer from the wrong scope.
 */
describe('database scopes', () => {
  let api: TestApp;
  let principal: UserPrincipal;
  let otherStoreId: string;
  let storeId: string;

  beforeAll(async () => {
    api = await startApp();
    const merchant = await merchantWithStore(api, 'Scoped store');
    storeId = merchant.storeId;
    otherStoreId = (await merchantWithStore(api, 'Other store')).storeId;
    principal = {
      kind: 'user',
      userId: merchant.session.user.id,
      email: merchant.session.user.email,
      role: 'merchant',
      sessionId: sessionIdOf(merchant.token),
    };
  });
  afterAll(async () => {
    await api?.close();
  });

  const scopes = () => api.app.get(DbScopes);
  const tenant = () => api.app.get(TenantDb);
  const system = () => api.app.get(SystemDb);
  const scoped = () => api.app.get(ScopedDb);
  const storeIds = async (rows: Promise<{ id: string }[]>) => (await rows).map((row) => row.id).sort();

  it("a user's scope: TenantDb sees that user's stores only, as the request login", async () => {
    const seen = await scopes().asUser(principal, async () => {
      const tx = tenant().tx;
      const [{ login }] = await tx.query('SELECT current_user AS login');
      return { login, stores: await storeIds(tx.query('SELECT id FROM stores')) };
    });
    expect(seen.login).toBe('storefront_app');
    expect(seen.stores).toEqual([storeId]);
  });

  it('the system scope: SystemDb runs as the service login and sees every store', async () => {
    const seen = await system().run(async () => {
      const tx = system().tx;
      const [{ login }] = await tx.query('SELECT current_user AS login');
      return {
        login,
        stores: await storeIds(
          tx.query('SELECT id FROM stores WHERE id = ANY ($1::uuid[])', [[storeId, otherStoreId]]),
        ),
      };
    });
    expect(seen.login).toBe('storefront_service');
    expect(seen.stores).toEqual([storeId, otherStoreId].sort());
  });

  it("a request's scope cannot enter the system scope, however deep the call", async () => {
    const attempt = scopes().asUser(principal, () =>
      Promise.resolve().then(() => system().run(async () => system().tx.query('SELECT 1'))),
    );
    await expect(attempt).rejects.toThrow('The system scope was asked for from a request scope');
    const fromSignIn = scopes().asAnonymous(() => system().run(async () => 1));
    await expect(fromSignIn).rejects.toThrow('from a anonymous scope');
  });

  it('each handle refuses the wrong scope instead of answering with other rights', async () => {
    expect(() => system().tx).toThrow('A system query ran outside the system scope');
    expect(() => tenant().tx).toThrow('A tenant query ran outside any database scope');
    expect(() => scoped().tx).toThrow('outside any database scope');
    await expect(scopes().asUser(principal, async () => system().tx)).rejects.toThrow('outside the system scope');
    await expect(system().run(async () => tenant().tx)).rejects.toThrow('A tenant query ran in the system scope');
    // ScopedDb answers with the caller's own login, whichever it is.
    const logins = await Promise.all([
      scopes().asUser(principal, async () => (await scoped().tx.query('SELECT current_user AS login'))[0].login),
      system().run(async () => (await scoped().tx.query('SELECT current_user AS login'))[0].login),
    ]);
    expect(logins).toEqual(['storefront_app', 'storefront_service']);
  });
});
