import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import {
  ConfigError,
  databaseConfig,
  ensureRedis,
  httpConfig,
  prepareDatabase,
  redisConfig,
  runtimeConfig,
  StartupError,
  type Settings,
} from '@app/core';
import { createApp } from './app.factory.js';
import { AppModule, LIB_DATABASES } from './app.module.js';
import { loadEnvFile } from './env-file.js';
import { shutDownOnSignals } from './graceful-shutdown.js';
import { loadAppSettings } from './settings.js';

/** Says, once per start, that this process runs on the installation's generated secrets. */
function warnDevelopmentSecrets(settings: Settings, logger: Logger): void {
  if (!settings.developmentSecretsFile) return;
  logger.warn(
    `${settings.get(runtimeConfig).NODE_ENV} process: generated secrets ` +
      `in ${settings.developmentSecretsFile}; set NODE_ENV=production and real secrets for deployment`,
  );
}

async function start(settings: Settings): Promise<void> {
  const runtime = settings.get(runtimeConfig);
  const http = settings.get(httpConfig);
  // Roles, grants, migrations and the request-binding key, through a connection closed before Nest starts.
  await prepareDatabase(settings.get(databaseConfig), LIB_DATABASES);
  await ensureRedis(settings.get(redisConfig).REDIS_URL);
  if (runtime.APP_ROLE === 'worker') {
    const worker = await NestFactory.createApplicationContext(AppModule.forRoot(settings), {
      bufferLogs: true,
      abortOnError: false,
    });
    worker.useLogger(worker.get(Logger));
    shutDownOnSignals(worker, runtime.SHUTDOWN_TIMEOUT_MS);
    warnDevelopmentSecrets(settings, worker.get(Logger));
    worker.get(Logger).log('Storefront Platform worker running (role worker, no HTTP)');
    return;
  }
  const app = await createApp(settings);
  shutDownOnSignals(app, runtime.SHUTDOWN_TIMEOUT_MS);
  await app.listen(http.PORT, http.HOST);
  warnDevelopmentSecrets(settings, app.get(Logger));
  app
    .get(Logger)
    .log(`Storefront Platform API on ${http.baseUrl} (role ${runtime.APP_ROLE}); docs at ${http.baseUrl}/docs`);
}

try {
  // `.env` under the real environment (env-file.ts), then every lib's settings validated at once:
  // a bad start names every problem in one go, before Nest builds anything (which would log a stack trace).
  loadEnvFile();
  await start(loadAppSettings(process.env));
} catch (error) {
  // Known start-up problems print one line each, no stack trace.
  if (error instanceof ConfigError || error instanceof StartupError) {
    console.error(error.message);
  } else {
    console.error(`Start-up failed: ${(error as Error).message}`);
  }
  process.exit(1);
}
