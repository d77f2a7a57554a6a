import { DatabaseConfig } from '../database/database.config.js';
import { apiTypes, apiTypesDescribedOnce } from '../database/type-parsers.js';
import { poolOptions } from './connections.module.js';

describe('the pools: a statement described once, unless a transaction pooler stands between (DATABASE_POOLER)', () => {
  const typesFor = (pooler: DatabaseConfig['DATABASE_POOLER'] | undefined) => {
    const config = Object.assign(new DatabaseConfig(), pooler === undefined ? {} : { DATABASE_POOLER: pooler });
    return (poolOptions(config, 'api', 'postgres://127.0.0.1/x', 'request') as { extra: { types: unknown } }).extra
      .types;
  };

  it.each([
    [undefined, apiTypesDescribedOnce],
    ['none', apiTypesDescribedOnce],
    ['session', apiTypesDescribedOnce],
    ['transaction', apiTypes],
  ] as const)('DATABASE_POOLER=%s: the pools parse with the expected types', (pooler, expected) => {
    expect(typesFor(pooler)).toBe(expected);
  });
});
