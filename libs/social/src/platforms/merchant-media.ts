import {
  HttpClientError,
  HttpConnectionError,
  HttpResponseTooLargeError,
  HttpTimeoutError,
  UnsafeUrlError,
  type SafeHttpClient,
} from '@app/core';
import { PlatformError } from './social-platform.js';

/** The bytes of a media file the merchant named by URL, for platforms that take uploads (X, YouTube). */
export interface MediaFile {
  bytes: Buffer;
  /** The server's content type, else the caller's fallback. */
  contentType: string;
}

/**
 * Downloads a merchant's media URL through the SSRF-guarded client (never plain fetch: the URL is
 * the merchant's). Any problem is the content's, not the platform's: a `rejected` error naming it.
 */
export async function fetchMedia(
  http: SafeHttpClient,
  url: string,
  options: { maxBytes: number; timeoutMs: number; fallbackType: string; platform: string },
): Promise<MediaFile> {
  const where = shortUrl(url);
  const refuse = (message: string, code: string) =>
    new PlatformError(`${options.platform}: ${message}`, 'rejected', code);
  let answer;
  try {
    answer = await http.get(url, {
      readBody: 'buffer',
      maxResponseBytes: options.maxBytes,
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    if (error instanceof HttpResponseTooLargeError) {
      throw refuse(
        `the media at ${where} is larger than ${Math.floor(options.maxBytes / 1048576)} MiB`,
        'media_too_large',
      );
    }
    if (error instanceof UnsafeUrlError)
      throw refuse(`the media URL ${where} may not be fetched (${error.reason})`, 'media_url_refused');
    if (error instanceof HttpTimeoutError)
      throw refuse(`the media at ${where} did not download within ${options.timeoutMs} ms`, 'media_unreachable');
    if (error instanceof HttpConnectionError || error instanceof HttpClientError) {
      throw refuse(`the media at ${where} could not be downloaded (${error.message})`, 'media_unreachable');
    }
    throw error;
  }
  if (answer.status < 200 || answer.status >= 300)
    throw refuse(`the media at ${where} answered HTTP ${answer.status}`, 'media_unreachable');
  if (answer.body.length === 0) throw refuse(`the media at ${where} is empty`, 'media_empty');
  const contentType = answer.contentType?.split(';')[0]?.trim().toLowerCase() || options.fallbackType;
  return { bytes: answer.body, contentType };
}

/** The URL without its query (which may carry a signature), at most 120 characters. */
function shortUrl(url: string): string {
  let shown = url;
  try {
    const parsed = new URL(url);
    shown = `${parsed.origin}${parsed.pathname}`;
  } catch {
    // not a URL: shown as given
  }
  return shown.length > 120 ? `${shown.slice(0, 119)}…` : shown;
}
