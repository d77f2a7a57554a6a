import { Injectable } from '@nestjs/common';
import { ApiError, SafeHttpClient, UnsafeUrlError } from '@app/core';

/**
 * Where deliveries may go: the shared SSRF guard's `assertUrl` (https, or http with
 * WEBHOOK_ALLOW_HTTP; no credentials; the host resolves, and to no loopback, private, link-local,
 * metadata… address unless WEBHOOK_ALLOW_PRIVATE_URLS). The address is checked again at every
 * connection by the same client, so a name that later resolves elsewhere is still refused.
 */
@Injectable()
export class WebhookUrlChecker {
  constructor(private readonly http: SafeHttpClient) {}

  /**
   * The URL in normalised form (WHATWG: lower-case scheme and host, default port dropped); 400 naming `url` when
   * refused.
   */
  async check(url: string): Promise<string> {
    try {
      await this.http.assertUrl(url);
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw ApiError.validation([{ field: 'url', message: error.message }]);
      throw error;
    }
    return new URL(url).href;
  }
}
