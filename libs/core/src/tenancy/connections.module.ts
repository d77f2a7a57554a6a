import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { runtimeConfig, type RuntimeConfig } from '../config/runtime.config.js';
import { databaseConfig, type DatabaseConfig } from '../database/database.config.js';
import { StartupError } from '../database/ensure-database.js';
import { OWNER_ROLE, REQUEST_ROLE, SYSTEM_ROLE } from '../database/roles.js';
import { apiTypes, apiTypesDescribedOnce } from '../database/type-parsers.js';
import { Connections, SERVICE_CONNECTION } from './connections.js';
import { RequestBindingModule } from './request-binding.js';

/**
 * Refuses a connection that may do more than its job: a superuser, a role that bypasses row-level
 * security, or (for requests) a member of the owner or system roles. The one exception is for tests:
 * with UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS under NODE_ENV=test (`mayBypassRls`), a request login with
 * BYPASSRLS is let through, loudly, so a test can check the guards alone.
 */
async function checked(
  dataSource: DataSource,
  label: 'request' | 'service',
  setting: string,
  mayBypassRls = false,
): Promise<DataSource> {
  const [role] = await dataSource.query(
    `SELECT current_user AS name, rolsuper, rolbypassrls,
            pg_has_role(current_user, '${OWNER_ROLE}', 'MEMBER') AS owner,
            pg_has_role(current_user, '${label === 'request' ? SYSTEM_ROLE : REQUEST_ROLE}', 'MEMBER') AS other
       FROM pg_roles WHERE rolname = current_user`,
  );
  const bypassAllowed = role.rolbypassrls && mayBypassRls && label === 'request';
  if (role.rolsuper || (role.rolbypassrls && !bypassAllowed) || role.owner || role.other) {
    await dataSource.destroy();
    throw new StartupError(
      `${setting} logs in as ${role.name}, which may do more than ${label}s need ` +
        `(superuser, BYPASSRLS or another storefront role): give it a role of its own.`,
    );
  }
  if (bypassAllowed) {
    new Logger('Database').warn(
      `UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: ${setting} logs in as ${role.name}, which BYPASSES ROW-LEVEL SECURITY. ` +
        'Only the guards stand between tenants in this process. This is for tests only (NODE_ENV=test).',
    );
  }
  return dataSource;
}

/**
 * Carries the config's `requestLoginMayBypassRls` from the options factory (which has the config) to `checked` (which
 * has not).
 */
const MAY_BYPASS_RLS = Symbol('storefront:request-login-may-bypass-rls');
type CheckedOptions = DataSourceOptions & { [MAY_BYPASS_RLS]?: boolean };

export function poolOptions(
  config: DatabaseConfig,
  role: RuntimeConfig['APP_ROLE'],
  url: string,
  name: string,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    // Bounds both a new connection to the server and the wait for a free one of the pool: while the
    // database is down, requests answer 503 within this time instead of queueing without end.
    connectTimeoutMS: config.DATABASE_CONNECT_TIMEOUT_MS,
    // Timestamps and text arrays parse on fast paths, to the same values as pg's own (database/type-parsers.ts);
    // a prepared statement's columns are asked for once per connection unless a pooler in transaction mode may
    // prepare it afresh elsewhere (database/named-statements.ts).
    extra: {
      max: config.DATABASE_POOL_SIZE,
      application_name: `storefront-${role}-${name}`,
      types: config.DATABASE_POOLER === 'transaction' ? apiTypes : apiTypesDescribedOnce,
    },
    logging: false,
  };
}

/**
 * The two connections the running application holds: the request role's (the default DataSource)
 * and the service role's (SERVICE_CONNECTION). Neither is a superuser; the start-up's administrative
 * connection (prepareDatabase) is closed before these open.
 */
@Module({
  imports: [
    RequestBindingModule,
    TypeOrmModule.forRootAsync({
      inject: [databaseConfig.KEY, runtimeConfig.KEY],
      useFactory: (config: DatabaseConfig, runtime: RuntimeConfig) =>
        Object.assign(
          { ...poolOptions(config, runtime.APP_ROLE, config.requestDatabaseUrl, 'request'), retryAttempts: 0 },
          { [MAY_BYPASS_RLS]: config.requestLoginMayBypassRls },
        ),
      dataSourceFactory: async (opts) =>
        checked(
          await new DataSource(opts!).initialize(),
          'request',
          'DATABASE_REQUEST_URL',
          (opts as CheckedOptions)[MAY_BYPASS_RLS] === true,
        ),
    }),
    TypeOrmModule.forRootAsync({
      name: SERVICE_CONNECTION,
      inject: [databaseConfig.KEY, runtimeConfig.KEY],
      useFactory: (config: DatabaseConfig, runtime: RuntimeConfig) => ({
        ...poolOptions(config, runtime.APP_ROLE, config.serviceDatabaseUrl, 'service'),
        name: SERVICE_CONNECTION,
        retryAttempts: 0,
      }),
      dataSourceFactory: async (opts) =>
        checked(await new DataSource(opts!).initialize(), 'service', 'DATABASE_SERVICE_URL'),
    }),
  ],
  providers: [Connections],
  exports: [Connections],
})
export class ConnectionsModule {}
