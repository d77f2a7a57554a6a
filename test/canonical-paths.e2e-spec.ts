import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { merchantWithStore, PUBLIC_KEY, startApp, type TestApp } from './support/app.js';
import { SYSTEM_DATA_SOURCE } from './support/database.js';

/** Sends `request` as it is over a socket (fetch would rewrite an absolute-form target); returns the answer's text. */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

/**
 * The request target's API prefix is taken only as it is spelled: a percent-encoded prefix or an
 * absolute-form target reaches the same routes but would skip every check that reads the raw target
 * (415, Idempotency-Key, the request transaction), so it is refused as it arrives with a 400.
 */
describe('canonical request targets', () => {
  let api: TestApp;
  let merchant: { token: string; storeId: string };
  const productsNamed = async (name: string) => {
    const sql = `SELECT count(*)::int AS n FROM products WHERE name = $1`;
    const rows = await api.app.get<DataSource>(SYSTEM_DATA_SOURCE).query(sql, [name]);
    return rows[0].n as number;
  };

  beforeAll(async () => {
    api = await startApp();
    merchant = await merchantWithStore(api, 'Canonical paths store');
  });
  afterAll(() => api?.close());

  it('refuses a percent-encoded /functions/v1 prefix with a 400 before the body is looked at', async () => {
    const encoded = await api.request('POST', `/%66unctions/v1/stores/${merchant.storeId}/products`, {
      token: merchant.token,
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(encoded.status).toBe(400);
    expect(encoded.body.success).toBe(false);
    expect(encoded.body.error.code).toBe('VALIDATION_FAILED');
    expect(encoded.body.error.message).toMatch(/API prefix/);
    expect(encoded.headers.get('x-request-id')).toBeTruthy();
  });

  it('makes nothing when an encoded prefix is sent twice with the same Idempotency-Key', async () => {
    const key = randomUUID();
    const body = { name: `encoded ${key}`, price: 1 };
    const path = `/%66unctions/v1/stores/${merchant.storeId}/products`;
    const send = () => api.request('POST', path, { token: merchant.token, body, headers: { 'idempotency-key': key } });
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([400, 400]);
    expect(await productsNamed(body.name)).toBe(0);
  });

  it('refuses an absolute-form request target over a raw socket', async () => {
    const port = Number(new URL(api.url).port);
    const answer = await rawRequest(
      port,
      `POST http://127.0.0.1:${port}/functions/v1/stores/${merchant.storeId}/products HTTP/1.1\r\nHost: x\r\n` +
        `Authorization: Bearer ${merchant.token}\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n` +
        `Connection: close\r\n\r\nname=x`,
    );
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: object };
    expect(body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/API prefix/) });
  });

  it('leaves a request with the plain prefix alone, percent-encoding later in the path included', async () => {
    const made = await api.request('POST', `/functions/v1/stores/${merchant.storeId}/products`, {
      token: merchant.token,
      body: { name: 'Plain prefix', price: 2 },
    });
    expect(made.status).toBe(201);
    const id = made.body.product.id as string;
    const encodedId = id.replace(/-/g, '%2D');
    expect(encodedId).not.toBe(id);
    const read = await api.request('GET', `/functions/v1/products/${encodedId}`, { token: merchant.token });
    expect(read.status).toBe(200);
    expect(read.body.product.id).toBe(id);
    const text = await api.request('POST', `/functions/v1/stores/${merchant.storeId}/products`, {
      token: merchant.token,
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
  });

  it('refuses a percent-encoded /auth/v1 prefix in GoTrue shape, before any credential is looked up', async () => {
    const encoded = await api.request('GET', '/%61uth/v1/user', {
      token: `sk_${'x'.repeat(43)}`,
      headers: { apikey: PUBLIC_KEY },
    });
    expect(encoded.status).toBe(400);
    const msg = expect.stringMatching(/API prefix/);
    expect(encoded.body).toEqual({ code: 400, error_code: 'validation_failed', msg });
  });
});
