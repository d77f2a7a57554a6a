import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { apiTypes, apiTypesDescribedOnce } from '../libs/core/src/database/type-parsers.js';
import { SERVICE_CONNECTION } from '../libs/core/src/tenancy/connections.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * DATABASE_POOLER decides whether the pools' connections describe a prepared statement once (PostgreSQL's own
 * sessions) or on every run (a pooler in transaction mode): the `types` each pool is given. What each `types`
 * does on the wire is test/raw-sql.e2e-spec.ts's.
 */
describe('DATABASE_POOLER: the pools describe a statement once, unless a transaction pooler stands between', () => {
  const typesOf = (api: TestApp, name?: string) =>
    (api.app.get<DataSource>(getDataSourceToken(name)).options as { extra?: { types?: unknown } }).extra?.types;

  it.each([
    [{}, apiTypesDescribedOnce],
    [{ DATABASE_POOLER: 'session' }, apiTypesDescribedOnce],
    [{ DATABASE_POOLER: 'transaction' }, apiTypes],
  ])('%o: the request and service pools parse with the expected types', async (env, expected) => {
    const api = await startApp(env as Record<string, string>);
    try {
      expect(typesOf(api)).toBe(expected);
      expect(typesOf(api, SERVICE_CONNECTION)).toBe(expected);
    } finally {
      await api.close();
    }
  });

  it('refuses any other value at start-up', async () => {
    await expect(startApp({ DATABASE_POOLER: 'statement' })).rejects.toThrow(/DATABASE_POOLER/);
  });
});
