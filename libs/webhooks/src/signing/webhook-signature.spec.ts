import { deliveryHeaders, serviceSignature, standardSignature, standardWebhooksKey } from './webhook-signature.js';

// Expected values computed independently with OpenSSL, e.g.
//   printf '%s' "$BODY" | openssl dgst -sha256 -hmac 'my-webhook-secret-123'
//   printf '%s' "evt_1.1795300000.$BODY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:<hex of base64-decoded key>
// -binary | base64
const BODY = '{"id":"evt_1","event":"order.paid"}';
const PLAIN = 'my-webhook-secret-123';
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('webhook signatures', () => {
  it('X-Service-Signature is the hex HMAC-SHA256 of the body under the secret’s UTF-8 bytes', () => {
    expect(serviceSignature(BODY, PLAIN)).toBe('a8c94eb88d1ca7f5a4bce3b5c3d3d7184613dcdd4aa2b1c592e53dab3c54391d');
    expect(serviceSignature(Buffer.from(BODY), WHSEC)).toBe(
      '0973e70765d8b82d610d7c1307d15db77bdfcd7b2b996f15d88f35fbfb3fd232',
    );
  });

  it('webhook-signature follows Standard Webhooks, with whsec_ secrets base64-decoded', () => {
    expect(standardSignature('evt_1', 1795300000, BODY, PLAIN)).toBe('v1,dQRZP7Lyb8h8PZaajmCblZ5QX7TXmQApfrnV8ZELIv0=');
    expect(standardSignature('evt_1', 1795300000, BODY, WHSEC)).toBe('v1,hRROJntQ25EYgCwnBRU7PyfJfWToB0qj8qrkVnG/d8Q=');
    expect(standardWebhooksKey(WHSEC).toString('hex')).toBe('31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0');
  });

  it('a body changed by one byte no longer matches', () => {
    expect(serviceSignature(BODY.replace('paid', 'paiD'), PLAIN)).not.toBe(serviceSignature(BODY, PLAIN));
  });

  it('signs with every secret during a rotation overlap', () => {
    const headers = deliveryHeaders({
      body: Buffer.from(BODY),
      envelopeId: 'evt_1',
      event: 'order.paid',
      deliveryId: 'd1',
      attempt: 2,
      secrets: [WHSEC, PLAIN],
      timestamp: 1795300000,
    });
    expect(headers['webhook-signature']).toBe(
      'v1,hRROJntQ25EYgCwnBRU7PyfJfWToB0qj8qrkVnG/d8Q= v1,dQRZP7Lyb8h8PZaajmCblZ5QX7TXmQApfrnV8ZELIv0=',
    );
    expect(headers['x-service-signature']).toBe('0973e70765d8b82d610d7c1307d15db77bdfcd7b2b996f15d88f35fbfb3fd232');
    expect(headers).toMatchObject({
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1795300000',
      'x-service-attempt': '2',
      'x-service-delivery': 'd1',
    });
  });
});
