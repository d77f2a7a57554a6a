import { IsIn, IsOptional, IsString, IsUrl, MinLength } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '../config/settings.js';

export class LoggingConfig extends SettingsGroup {
  @Setting('`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Credentials are never logged.')
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Setting(
    '`json`: one JSON object per line (pino). `pretty`: readable lines through ' +
      '`pino-pretty` (a development dependency). See docs/observability.md § Logs.',
    { default: '`pretty` in development, `json` otherwise' },
  )
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  // The tracing preload (`--import ./dist/apps/api/src/instrument.js`) reads it from the environment
  // before the app loads; here it is validated and turns on the trace ids in the logs.
  @Setting(
    'OTLP/HTTP collector base URL (`http://collector:4318`): traces go to `<url>/v1/traces`, logs ' +
      'get `trace_id`/`span_id`. Unset: no tracing SDK is loaded. See docs/observability.md § Traces.',
    { default: 'unset (no tracing)' },
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @Setting('The `service.name` of the exported spans.')
  @IsString()
  @MinLength(1)
  OTEL_SERVICE_NAME = 'storefront-api';

  /** LOG_FORMAT, or its default: pretty in development, JSON in production and test. */
  get logFormat(): 'json' | 'pretty' {
    return this.LOG_FORMAT ?? (this.nodeEnv === 'development' ? 'pretty' : 'json');
  }

  /** Whether this process exports traces (OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  get tracingEnabled(): boolean {
    return this.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  }
}

export const loggingConfig = defineSettings('logging', '@app/core', LoggingConfig, {
  description: 'Logs and traces.',
});
