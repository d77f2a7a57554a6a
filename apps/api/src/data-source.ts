import 'reflect-metadata';
import { loadConfig, MigrationDataSource } from '@app/core';
import { MIGRATIONS } from './app.module.js';
import { loadEnvFile } from './env-file.js';

/**
 * The migrations CLI's DataSource (`npm run migration:run`, `migration:revert`, `migration:show`:
 * `typeorm <command> -d dist/apps/api/src/data-source.js`): the same settings and migration list as
 * the start-up (`.env` included), which also migrates on every boot. What connecting prepares, and what it leaves to
 * the next start: MigrationDataSource.
 */
loadEnvFile();
export default new MigrationDataSource(loadConfig(), MIGRATIONS);
