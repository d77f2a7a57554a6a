import type { OpenAPIObject } from '@nestjs/swagger';
import { idempotencyCaller } from './idempotency-caller.js';
import { declareIdempotency, isIdempotentOperation } from './idempotency.openapi.js';

describe('isIdempotentOperation', () => {
  it('covers the writes of /functions/v1 and nothing else', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) {
      expect(isIdempotentOperation(method, '/functions/v1/stores/1/orders'), method).toBe(true);
    }
    expect(isIdempotentOperation('GET', '/functions/v1/stores')).toBe(false);
    expect(isIdempotentOperation('HEAD', '/functions/v1/stores')).toBe(false);
    expect(isIdempotentOperation('POST', '/auth/v1/token')).toBe(false);
    expect(isIdempotentOperation('POST', '/functions/v10/stores')).toBe(false);
  });
});

describe('idempotencyCaller', () => {
  it('names a user by id, and no caller for the public key alone', () => {
    const user = { kind: 'user', userId: 'u1', email: 'a@b.c', role: 'merchant', sessionId: 's' } as const;
    expect(idempotencyCaller(user)).toBe('user:u1');
    expect(idempotencyCaller({ kind: 'anon' })).toBeNull();
    expect(idempotencyCaller(undefined)).toBeNull();
  });
});

describe('declareIdempotency', () => {
  const conflict = { description: 'Not enough stock', content: { 'application/json': { example: { kept: true } } } };
  const document = (): OpenAPIObject => ({
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/functions/v1/stores/{store_id}/orders': {
        post: { responses: { '201': { description: 'Created' }, '409': structuredClone(conflict) } },
        get: { responses: { '200': { description: 'OK' } } },
      },
      '/auth/v1/token': { post: { responses: { '200': { description: 'OK' } } } },
    },
  });

  it("adds the header, 409, 422 and Idempotent-Replayed to each write, keeping a route's own 409", () => {
    const doc = document();
    declareIdempotency(doc);
    declareIdempotency(doc);
    const post = doc.paths['/functions/v1/stores/{store_id}/orders'].post!;
    const header = { name: 'Idempotency-Key', in: 'header', required: false };
    expect(post.parameters).toEqual([expect.objectContaining(header)]);
    const answers = post.responses as Record<string, any>;
    const both = 'Not enough stock; or: A request with the same Idempotency-Key is still being processed';
    expect(answers['409'].description).toBe(both);
    expect(answers['409'].content).toEqual(conflict.content);
    expect(answers['422'].content['application/json'].example.error.code).toBe('UNPROCESSABLE');
    expect(answers['201'].headers['Idempotent-Replayed'].schema).toEqual({ type: 'string', enum: ['true'] });
    expect(doc.paths['/functions/v1/stores/{store_id}/orders'].get!.parameters).toBeUndefined();
    expect(doc.paths['/auth/v1/token'].post!.parameters).toBeUndefined();
  });
});
