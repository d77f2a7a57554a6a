import { register } from 'node:module';
import { loadEnvFile } from './env-file.js';

/**
 * The tracing preload: every start script runs the app as
 * `node --import ./dist/apps/api/src/instrument.js dist/apps/api/src/main.js`, so that tracing, when
 * OTEL_EXPORTER_OTLP_ENDPOINT turns it on, is set up before any instrumented module (http, pg,
 * ioredis, fastify, bull) is loaded. The app is ES modules: `require` hooks see only the CommonJS
 * side (TypeORM loading pg), so an ES module loader hook (import-in-the-middle) is registered too,
 * for the modules the instrumentations name only (@nestjs/bull imports bull). Unset, this module does
 * nothing: neither the OpenTelemetry SDK nor the loader hook is loaded, and requests run exactly as
 * without it. OTEL_EXPORTER_OTLP_ENDPOINT may come from `.env` as any setting may (env-file.ts).
 */
// `.env` first, so that its OTEL_* variables count; a file that cannot be read is main's to report.
try {
  loadEnvFile();
} catch {
  /* main.ts says it in one line */
}
// An endpoint that is no URL starts nothing here: the configuration check refuses it with one line.
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
if (endpoint && URL.canParse(endpoint)) {
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const { startTracing } = await import('./tracing/tracing.js');
  startTracing(process.env);
  // The loader runs in its own thread: the app's imports wait until it knows every module to hook.
  await waitForAllMessagesAcknowledged();
}

export {};
