import type { Provider } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { SAFE_HTTP_OPTIONS, SafeHttpClient, type SafeHttpOptions } from './safe-http-client.js';

/** The client's policy from the environment: private addresses and plain http only where configured (development, tests). */
export function safeHttpOptionsFromConfig(config: AppConfig): SafeHttpOptions {
  return { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS, allowHttp: config.WEBHOOK_ALLOW_HTTP };
}

/** `SAFE_HTTP_OPTIONS` from `AppConfig`, and the shared `SafeHttpClient` built with them (CoreModule registers both). */
export const SAFE_HTTP_PROVIDERS: Provider[] = [
  { provide: SAFE_HTTP_OPTIONS, inject: [AppConfig], useFactory: safeHttpOptionsFromConfig },
  SafeHttpClient,
];
