import { Logger, type ArgumentsHost } from '@nestjs/common';
import { ApiError } from './api-error.js';
import { DomainError, DomainErrorAnswers } from './domain-error.js';
import { ErrorEnvelopeFilter } from './error-envelope.filter.js';

class ShelfEmpty extends DomainError {
  readonly context = 'shop';
  readonly kind = 'shelf_empty';

  constructor(readonly shelf: string) {
    super(`Shelf ${shelf} is empty`);
  }
}

class Unmapped extends DomainError {
  readonly context = 'elsewhere';
  readonly kind = 'unmapped';
}

/** What the filter sent: status, headers and body. */
function answerOf(filter: ErrorEnvelopeFilter, error: unknown) {
  const sent = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const reply = {
    header: (name: string, value: string) => (sent.headers[name] = value),
    status: (status: number) => ((sent.status = status), reply),
    type: () => reply,
    send: (body: unknown) => (sent.body = body),
  };
  const request = { id: 'r1', method: 'POST', url: '/functions/v1/shelves/a' };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  filter.catch(error, host);
  return sent;
}

describe('domain errors', () => {
  const answers = new DomainErrorAnswers();
  answers.register<ShelfEmpty>({
    context: 'shop',
    answer: (error) =>
      new ApiError(409, 'OUT_OF_STOCK', error.message, { shelf: error.shelf }, { 'Retry-After': '60' }),
  });
  const filter = new ErrorEnvelopeFilter(answers);

  it('are answered as their context’s mapping says, in the envelope', () => {
    expect(answerOf(filter, new ShelfEmpty('a'))).toEqual({
      status: 409,
      headers: { 'Retry-After': '60' },
      body: { success: false, error: { code: 'OUT_OF_STOCK', message: 'Shelf a is empty', details: { shelf: 'a' } } },
    });
  });

  it('of a context that registered no mapping are a bare 500, logged like any unexpected error', () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(answers.answer(new Unmapped('lost'))).toBeUndefined();
    expect(answerOf(filter, new Unmapped('lost'))).toMatchObject({
      status: 500,
      body: { success: false, error: { code: 'INTERNAL', message: 'Internal error' } },
    });
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.objectContaining({ type: 'Unmapped' }) }),
      'request failed',
    );
    logged.mockRestore();
  });

  it('are mapped once per context', () => {
    expect(() => answers.register({ context: 'shop', answer: () => ApiError.forbidden() })).toThrow('mapped twice');
  });

  it('carry their class name, for the logs', () => {
    expect(new ShelfEmpty('b').name).toBe('ShelfEmpty');
  });
});
