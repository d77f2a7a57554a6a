import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { StartupError } from './ensure-database.js';
import { Databases, SERVICE_CONNECTION } from './db-scope.js';
import { OWNER_ROLE, REQUEST_ROLE, SYSTEM_ROLE } from './roles.js';

/**
 * Refuses a connection that may do more than its job: a superuser, a role that bypasses row-level
 * security, or (for requests) a member of the owner or system roles.
 */
async function checked(dataSource: DataSource, label: 'request' | 'service', setting: string): Promise<DataSource> {
  const [role] = await dataSource.query(
    `SELECT current_user AS name, rolsuper, rolbypassrls,
            pg_has_role(current_user, '${OWNER_ROLE}', 'MEMBER') AS owner,
            pg_has_role(current_user, '${label === 'request' ? SYSTEM_ROLE : REQUEST_ROLE}', 'MEMBER') AS other
       FROM pg_roles WHERE rolname = current_user`,
  );
  if (role.rolsuper || role.rolbypassrls || role.owner || role.other) {
    await dataSource.destroy();
    throw new StartupError(
      `${setting} logs in as ${role.name}, which may do more than ${label}s need (superuser, BYPASSRLS or another storefront role): give it a role of its own.`,
    );
  }
  return dataSource;
}

function options(config: AppConfig, url: string, name: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    extra: { max: config.DATABASE_POOL_SIZE, application_name: `storefront-${config.APP_ROLE}-${name}` },
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
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...options(config, config.requestDatabaseUrl, 'request'), retryAttempts: 0 }),
      dataSourceFactory: async (opts) => checked(await new DataSource(opts!).initialize(), 'request', 'DATABASE_REQUEST_URL'),
    }),
    TypeOrmModule.forRootAsync({
      name: SERVICE_CONNECTION,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...options(config, config.serviceDatabaseUrl, 'service'),
        name: SERVICE_CONNECTION,
        retryAttempts: 0,
      }),
      dataSourceFactory: async (opts) => checked(await new DataSource(opts!).initialize(), 'service', 'DATABASE_SERVICE_URL'),
    }),
  ],
  providers: [Databases],
  exports: [Databases],
})
export class DatabaseModule {}
