import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { ensureDatabase } from './ensure-database.js';
import { CoreRlsFoundation1763800000000 } from './migrations/1763800000000-core-rls-foundation.js';
import { CoreOutbox1763800050000 } from './migrations/1763800050000-outbox.js';
import { CoreIdempotency1763800060000 } from './migrations/1763800060000-idempotency.js';

/**
 * Runs pending migrations while holding a PostgreSQL advisory lock, so that instances booting
 * together (api and worker, or parallel test workers) apply each migration exactly once.
 */
async function runMigrationsLocked(dataSource: DataSource): Promise<DataSource> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(hashtext('storefront:migrations'))`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(hashtext('storefront:migrations'))`).catch(() => undefined);
    await lock.release();
  }
  return dataSource;
}

/** TypeORM on PostgreSQL; creates the database when missing and runs every lib's migrations at boot. */
@Module({})
export class DatabaseModule {
  static forRoot(migrations: Function[]): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: async (config: AppConfig) => {
            await ensureDatabase(config.DATABASE_URL);
            return {
              type: 'postgres' as const,
              url: config.DATABASE_URL,
              autoLoadEntities: true,
              synchronize: false,
              migrationsRun: false,
              migrationsTransactionMode: 'each' as const,
              migrations: [CoreRlsFoundation1763800000000, CoreOutbox1763800050000, CoreIdempotency1763800060000, ...migrations],
              extra: { max: config.DATABASE_POOL_SIZE, application_name: `storefront-${config.APP_ROLE}` },
              retryAttempts: 0,
              logging: false,
            };
          },
          dataSourceFactory: async (options) => runMigrationsLocked(await new DataSource(options!).initialize()),
        }),
      ],
    };
  }
}
