import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AppConfig, loadConfig } from './app-config.js';

/** Provides the validated AppConfig everywhere; `forRoot(config)` lets tests pass their own. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] };
  }
}
