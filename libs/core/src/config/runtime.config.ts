import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from './settings.js';

export class RuntimeConfig extends SettingsGroup {
  // Unset means production: only a process that says it is development or test may run without secrets.
  @Setting(
    '`development`, `test` or `production`. Anything but `development` or ' +
      '`test`, unset included, requires the settings marked required in production. ' +
      '`npm start` and `npm run seed` use `development` when it is unset.',
    { default: 'unset (production)' },
  )
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'production';

  @Setting(
    '`api` serves HTTP, `worker` runs the background side without ' +
      'HTTP, `all` does both (docs/operations.md § Several instances).',
  )
  @IsIn(['all', 'api', 'worker'])
  APP_ROLE: 'all' | 'api' | 'worker' = 'all';

  @Setting(
    'How long SIGTERM/SIGINT may take (1000–600000 ms): requests and jobs in flight finish, jobs ' +
      'still running at 80 % of it are handed back to the queue; past it the process logs it and exits 1.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  @Setting(
    'How often the workers look for background jobs a crash or a Redis restart ' +
      'lost (pending webhook deliveries, scheduled posts), at least 100 ms.',
  )
  @Type(() => Number)
  @IsInt()
  @Min(100)
  JOB_SWEEP_INTERVAL_MS = 30_000;

  @Setting('A pending webhook delivery or a scheduled post this far past its time with no job is enqueued again.')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  LOST_JOB_AFTER_MS = 60_000;

  @Setting(
    '32 bytes, base64 (`openssl rand -base64 32`), for what is stored encrypted ' +
      '(webhook secrets, social platform tokens, the secrets of queued e-mails; ' +
      'AES-256-GCM). Generated in development and test (docs/configuration.md § Secrets).',
    { default: 'generated in development and test', requiredInProduction: true, developmentSecret: 'ENCRYPTION_KEY' },
  )
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be 32 bytes, base64-encoded (openssl rand -base64 32)' })
  ENCRYPTION_KEY?: string;

  // loadSettings sets the key (from the environment, or generated in development and test); settings
  // built any other way have none rather than a value everyone knows.
  get encryptionKey(): Buffer {
    if (!this.ENCRYPTION_KEY) throw new Error('ENCRYPTION_KEY is unset (build the settings with loadSettings)');
    return Buffer.from(this.ENCRYPTION_KEY, 'base64');
  }
}

export const runtimeConfig = defineSettings('runtime', '@app/core', RuntimeConfig, {
  description:
    "The process: what kind it is, what it runs, how it stops, and the installation's key for stored secrets.",
});
