import { createHmac } from 'node:crypto';

/** `X-Service-Signature`: lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret's UTF-8 bytes. */
export function serviceSignature(body: Buffer | string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** The Standard Webhooks key: the decoded bytes of a `whsec_<base64>` secret, else the secret's UTF-8 bytes. */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** One `webhook-signature` entry: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. */
export function standardSignature(id: string, timestamp: number, body: Buffer | string, secret: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export interface SignedHeadersInput {
  body: Buffer;
  envelopeId: string;
  event: string;
  deliveryId: string;
  attempt: number;
  /** The current secret first, then a rotated-out one still inside its overlap. */
  secrets: string[];
  timestamp?: number;
}

/**
 * Every header of a delivery (docs/api.md § Receiving deliveries). Each secret signs: receivers
 * holding either the new or the old secret during a rotation verify (`webhook-signature` lists one
 * `v1,` entry per secret; `X-Service-Signature` carries the current secret's).
 */
export function deliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Storefront-Webhooks/1.0',
    'x-service-event': input.event,
    'x-service-delivery': input.deliveryId,
    'x-service-attempt': String(input.attempt),
    'x-service-signature': serviceSignature(input.body, input.secrets[0]),
    'webhook-id': input.envelopeId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': input.secrets
      .map((secret) => standardSignature(input.envelopeId, timestamp, input.body, secret))
      .join(' '),
  };
}
