import type { Provider } from '@nestjs/common';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { SafeHttpClient } from './safe-http-client.js';
import { SAFE_HTTP_OPTIONS, type SafeHttpOptions } from './safe-http.types.js';

/**
 * The client's policy from the settings: private addresses and plain http only where configured (development, tests).
 */
export function safeHttpOptionsFromConfig(config: HttpConfig): SafeHttpOptions {
  return { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS, allowHttp: config.WEBHOOK_ALLOW_HTTP };
}

/**
 * `SAFE_HTTP_OPTIONS` from the http settings, and the shared `SafeHttpClient` built with them (CoreModule registers
 * both).
 */
export const SAFE_HTTP_PROVIDERS: Provider[] = [
  { provide: SAFE_HTTP_OPTIONS, inject: [httpConfig.KEY], useFactory: safeHttpOptionsFromConfig },
  SafeHttpClient,
];
