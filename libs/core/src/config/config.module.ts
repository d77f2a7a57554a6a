import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule as NestConfigModule } from '@nestjs/config';
import { Settings } from './load-settings.js';

/**
 * Provides the validated settings everywhere: each namespace under its @nestjs/config KEY
 * (`@Inject(mailConfig.KEY) mail: MailConfig`), ConfigService, and `Settings` itself.
 * `forRoot(settings)` takes what `loadSettings` read, so a test passes its own; the environment is not
 * read again here (the entry points load `.env` before: apps/api/src/env-file.ts).
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: ConfigModule,
      imports: [
        NestConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          validatePredefined: false,
          skipProcessEnv: true,
          load: settings.factories(),
        }),
      ],
      providers: [{ provide: Settings, useValue: settings }],
      exports: [Settings],
    };
  }
}
