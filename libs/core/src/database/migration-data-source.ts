import { DataSource, type DataSourceOptions, type Migration } from 'typeorm';
import type { DatabaseConfig } from './database.config.js';
import type { LibDatabase } from './declared-sql.js';
import {
  lockForMigrations,
  migrateAndDeclare,
  migrationDataSourceOptions,
  prepareServer,
  type MigrationLock,
} from './prepare-database.js';

/**
 * The DataSource the TypeORM CLI is given (`npm run migration:run|revert|show`,
 * apps/api/src/data-source.ts): the start-up's own migrations, sql/ files and connection (the administrative
 * login of DATABASE_URL or DATABASE_OWNER_URL, every statement run as the owner role).
 *
 * Connecting does what the start-up does before it migrates: it creates the database and the roles
 * when missing (`prepareServer`), then takes the migration lock and prepares grants, ownership and the
 * schema rights the migrations borrow (`lockForMigrations`), so a CLI run and starting instances
 * migrate one at a time. Closing it gives those rights back and releases the lock. Unlike a start, it
 * does not write the installation's request-binding key or session settings (the next start does), and
 * it touches neither Redis nor the admin account.
 */
export class MigrationDataSource extends DataSource {
  private lock?: MigrationLock;

  constructor(
    private readonly config: DatabaseConfig,
    private readonly libs: readonly LibDatabase[],
  ) {
    super({
      ...migrationDataSourceOptions(config.ownerDatabaseUrl, libs),
      logging: ['error', 'warn', 'schema', 'migration'],
    });
  }

  /** `migration:run`: the pending migrations, then every lib's sql/ files, as a start does. */
  override runMigrations(options?: Parameters<DataSource['runMigrations']>[0]): Promise<Migration[]> {
    return migrateAndDeclare(this, this.libs, () => super.runMigrations(options));
  }

  override async initialize(): Promise<this> {
    await prepareServer(this.config);
    this.lock = await lockForMigrations(this.config);
    try {
      return await super.initialize();
    } catch (error) {
      await this.releaseLock();
      throw error;
    }
  }

  override async destroy(): Promise<void> {
    try {
      if (this.isInitialized) await super.destroy();
    } finally {
      await this.releaseLock();
    }
  }

  /**
   * The CLI sets its own options before connecting (logging every query, among others); the logging
   * stays ours: errors, warnings, the migrations listed or run (one line each), not the SQL of every function body.
   */
  override setOptions(options: Partial<DataSourceOptions>): this {
    const { logging: _ignored, ...rest } = options;
    return super.setOptions(rest);
  }

  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }
}
