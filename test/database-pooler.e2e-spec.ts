import { startApp } from './support/app.js';

/**
 * DATABASE_POOLER decides whether the pools' connections describe a prepared statement once (PostgreSQL's own
 * sessions) or on every run (a pooler in transaction mode): the `types` each pool is given
 * (tenancy/connections.module.spec.ts). What each `types` does on the wire is test/raw-sql.e2e-spec.ts's.
 */
describe('DATABASE_POOLER: the pools describe a statement once, unless a transaction pooler stands between', () => {
  it('refuses any other value at start-up', async () => {
    await expect(startApp({ DATABASE_POOLER: 'statement' })).rejects.toThrow(/DATABASE_POOLER/);
  });
});
