import 'reflect-metadata';
import { databaseConfig, MigrationDataSource } from '@app/core';
import { LIB_DATABASES } from './app.module.js';
import { loadEnvFile } from './env-file.js';
import { loadAppSettings } from './settings.js';

/**
 * The migrations CLI's DataSource (`npm run migration:run`, `migration:revert`, `migration:show`:
 * `typeorm <command> -d dist/apps/api/src/data-source.js`): the same settings and migration list as
 * the start-up (`.env` included), which also migrates on every boot. What connecting prepares, and what it leaves to
 * the next start: MigrationDataSource.
 */
loadEnvFile();
export default new MigrationDataSource(loadAppSettings(process.env).get(databaseConfig), LIB_DATABASES);
