import { Injectable } from '@nestjs/common';
import {
  ApiError,
  HttpConnectionError,
  HttpResponseTooLargeError,
  HttpTimeoutError,
  SafeHttpClient,
  UnsafeUrlError,
  type HttpBufferResponse,
} from '@app/core';
import { analyzeImage, UnreadableImageError } from '../images/image-analysis.js';
import type { ImageFacts } from '../providers/ai-provider.js';

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const IMAGE_FETCH_TIMEOUT_MS = 10_000;

function unreadable(message: string): ApiError {
  return ApiError.unprocessable(message, [{ field: 'image_url', message }]);
}

/**
 * Fetches a product photo for `generate-product` through the SSRF-guarded client (public
 * addresses only, no redirects, 10 s, 10 MiB) and decodes it. Every way it can fail is the
 * caller's URL, so each is a 422 naming the reason, and nothing has been charged yet.
 */
@Injectable()
export class ProductImageFetcher {
  constructor(private readonly http: SafeHttpClient) {}

  async fetch(url: string): Promise<ImageFacts> {
    let response: HttpBufferResponse;
    try {
      response = await this.http.get(url, {
        readBody: 'buffer',
        maxResponseBytes: MAX_IMAGE_BYTES,
        timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
        headers: { accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1' },
      });
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw unreadable(`image_url cannot be fetched: ${error.message}`);
      if (error instanceof HttpResponseTooLargeError)
        throw unreadable(`image_url is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MiB`);
      if (error instanceof HttpTimeoutError)
        throw unreadable(`image_url did not answer within ${IMAGE_FETCH_TIMEOUT_MS / 1000} s`);
      if (error instanceof HttpConnectionError) throw unreadable('image_url could not be reached');
      throw error;
    }
    if (response.status >= 300 && response.status < 400)
      throw unreadable(`image_url answered a redirect (HTTP ${response.status}); give the final URL`);
    if (response.status !== 200) throw unreadable(`image_url answered HTTP ${response.status}`);
    const type = response.contentType?.split(';')[0].trim().toLowerCase();
    // Servers that do not know the type send octet-stream or nothing: the bytes decide then.
    if (type && !type.startsWith('image/') && type !== 'application/octet-stream' && type !== 'binary/octet-stream') {
      throw unreadable(`image_url is not an image (Content-Type: ${type})`);
    }
    try {
      return await analyzeImage(response.body);
    } catch (error) {
      if (error instanceof UnreadableImageError) throw unreadable(error.message);
      throw error;
    }
  }
}
