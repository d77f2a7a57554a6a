import type { ApplicationConfig } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ErrorEnvelopeFilter, IdempotentWrites } from '@app/core';
import { REQUEST_FIELDS } from '../apps/api/src/app.factory.js';
import { merchantWithStore, startApp, type TestApp } from './support/app.js';

/**
 * Every field the app's steps set on a request is declared when the app is built (REQUEST_FIELDS,
 * app.factory.ts), so that requests keep the one hidden class Fastify's constructor gives them. A step
 * that sets a field of its own without declaring it shows here, as a key after the declared ones.
 */
describe('the shape of a request', () => {
  let api: TestApp;
  const shapes: string[][] = [];
  let spies: { mockRestore(): void }[] = [];

  beforeAll(async () => {
    api = await startApp();
    // Records the request's own fields where the handler runs (every route) and where errors are answered.
    const keyed = IdempotentWrites.prototype.keyed;
    const caught = ErrorEnvelopeFilter.prototype.catch;
    spies = [
      vi.spyOn(IdempotentWrites.prototype, 'keyed').mockImplementation(function (this: IdempotentWrites, request) {
        shapes.push(Object.keys(request));
        return keyed.call(this, request);
      }),
      vi.spyOn(ErrorEnvelopeFilter.prototype, 'catch').mockImplementation(function (
        this: ErrorEnvelopeFilter,
        e,
        host,
      ) {
        shapes.push(Object.keys(host.switchToHttp().getRequest<FastifyRequest>()));
        return caught.call(this, e, host);
      }),
    ];
  });
  afterAll(async () => {
    for (const spy of spies) spy.mockRestore();
    await api.close();
  });

  it('no global interceptor: Nest calls a route without building an rxjs chain around it', () => {
    // The application's configuration, where APP_INTERCEPTOR and APP_GUARD providers end up.
    const config = (api.app as unknown as { config: ApplicationConfig }).config;
    expect(config.getGlobalInterceptors().map((interceptor) => interceptor.constructor.name)).toEqual([]);
    expect(config.getGlobalRequestInterceptors()).toEqual([]);
    // Only the app's own guards: no library's no-op among them.
    for (const guard of config.getGlobalGuards()) expect(guard.constructor.name).not.toBe('Object');
  });

  it('a read, a keyed write and a refused request: no field beyond those the app declares', async () => {
    const owner = await merchantWithStore(api, 'Shape');
    const stranger = await merchantWithStore(api, 'Stranger');
    const created = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
      token: owner.token,
      body: { name: 'Shape', price: 1, inventory_quantity: 5, status: 'active' },
      headers: { 'idempotency-key': 'shape-1' },
    });
    expect(created.status).toBe(201);
    expect(
      (await api.request('GET', `/functions/v1/stores/${owner.storeId}/products`, { token: owner.token })).status,
    ).toBe(200);
    const refused = await api.request('GET', `/functions/v1/stores/${owner.storeId}/products`, {
      token: stranger.token,
    });
    expect(refused.status).toBe(404);
    expect(shapes.length).toBeGreaterThanOrEqual(3);
    const fastifyOwn = ['id', 'params', 'raw', 'query', 'log', 'body', 'corsPreflightEnabled'];
    const known = new Set([...fastifyOwn, ...REQUEST_FIELDS]);
    for (const shape of shapes) {
      expect(shape.filter((key) => !known.has(key))).toEqual([]);
      // Set by Fastify's constructor, in the order declared, before any step ran: the same for every request.
      expect(shape.slice(6, 6 + REQUEST_FIELDS.length)).toEqual(REQUEST_FIELDS);
      expect(shape).toEqual(shapes[0]);
    }
  });
});
