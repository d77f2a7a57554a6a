import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { HttpResponseTooLargeError } from './http-client.errors.js';

// Reading a response for SafeHttpClient: never more of a body than the caller allows.

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Reads up to `limit` bytes, then stops (leaving the loop destroys the stream and its connection). */
export async function readExcerpt(
  body: Dispatcher.ResponseData['body'],
  limit: number,
): Promise<{ excerpt: string; truncated: boolean }> {
  const decoder = new StringDecoder('utf8');
  let excerpt = '';
  let size = 0;
  let truncated = false;
  if (limit <= 0) {
    discard(body);
    return { excerpt, truncated: true };
  }
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = limit - size;
    if (room <= 0 || chunk.length > room) {
      if (room > 0) excerpt += decoder.write(chunk.subarray(0, room));
      truncated = true;
      break;
    }
    excerpt += decoder.write(chunk);
    size += chunk.length;
  }
  return { excerpt, truncated };
}

/** Reads the whole body, refusing (before reading, when Content-Length says so) one longer than `limit`. */
export async function readAll(response: Dispatcher.ResponseData, limit: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    discard(response.body);
    throw new HttpResponseTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpResponseTooLargeError(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Drops an unread body; undici reports that as an 'error' event, which is expected here. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined).destroy();
}
