import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { hourlyLimits } from '@app/billing';
import { platformSettingsProblems } from '@app/social';
import { ConfigError, ensureRedis, loadConfig, prepareDatabase, StartupError, type AppConfig } from '@app/core';
import { createApp } from './app.factory.js';
import { loadEnvFile } from './env-file.js';
import { AppModule, MIGRATIONS } from './app.module.js';
import { shutDownOnSignals } from './graceful-shutdown.js';

/** Says, once per start, that this process runs on the installation's generated secrets. */
function warnDevelopmentSecrets(config: AppConfig, logger: Logger): void {
  if (!config.developmentSecretsFile) return;
  logger.warn(
    `${config.NODE_ENV} process: generated secrets in ${config.developmentSecretsFile}; set NODE_ENV=production and real secrets for deployment`,
  );
}

async function start(config: AppConfig): Promise<void> {
  // Settings that only a lib can check, checked before Nest builds anything (which would log a stack trace).
  hourlyLimits(config.AI_HOURLY_LIMITS);
  const platformProblems = platformSettingsProblems(config);
  if (platformProblems.length > 0) throw new ConfigError(platformProblems);
  // Roles, grants, migrations and the request-binding key, through a connection closed before Nest starts.
  await prepareDatabase(config, MIGRATIONS);
  await ensureRedis(config.REDIS_URL);
  if (config.APP_ROLE === 'worker') {
    const worker = await NestFactory.createApplicationContext(AppModule.forRoot(config), { bufferLogs: true, abortOnError: false });
    worker.useLogger(worker.get(Logger));
    shutDownOnSignals(worker, config.SHUTDOWN_TIMEOUT_MS);
    warnDevelopmentSecrets(config, worker.get(Logger));
    worker.get(Logger).log('Storefront Platform worker running (role worker, no HTTP)');
    return;
  }
  const app = await createApp(config);
  shutDownOnSignals(app, config.SHUTDOWN_TIMEOUT_MS);
  await app.listen(config.PORT, config.HOST);
  warnDevelopmentSecrets(config, app.get(Logger));
  app.get(Logger).log(`Storefront Platform API on ${config.baseUrl} (role ${config.APP_ROLE}); docs at ${config.baseUrl}/docs`);
}

try {
  // `.env` under the real environment (env-file.ts), then every setting validated at once.
  loadEnvFile();
  await start(loadConfig());
} catch (error) {
  // Known start-up problems print one line each, no stack trace.
  if (error instanceof ConfigError || error instanceof StartupError) {
    console.error(error.message);
  } else {
    console.error(`Start-up failed: ${(error as Error).message}`);
  }
  process.exit(1);
}
