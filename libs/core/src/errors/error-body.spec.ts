import { errorBody } from './error-body.js';
import { fieldErrors } from './validation.js';

describe('errorBody', () => {
  it('answers the envelope under /functions/v1, with details only when there are some', () => {
    expect(errorBody('/functions/v1/stores', { status: 404, message: 'Store not found' })).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Store not found' },
    });
    expect(
      errorBody('/functions/v1/x', { status: 429, code: 'RATE_LIMITED', message: 'slow down', details: { limit: 1 } }),
    ).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: 'slow down', details: { limit: 1 } },
    });
    expect(errorBody('/functions/v1/x', { status: 500, message: 'Internal error' }).error).toMatchObject({
      code: 'INTERNAL',
    });
  });

  it("answers GoTrue's shape under /auth/v1", () => {
    expect(
      errorBody('/auth/v1/token?grant_type=password', {
        status: 400,
        code: 'invalid_credentials',
        message: 'Invalid login credentials',
      }),
    ).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });
    expect(errorBody('/auth/v1/user', { status: 401, code: 'UNAUTHENTICATED', message: 'no' })).toEqual({
      code: 401,
      error_code: 'no_authorization',
      msg: 'no',
    });
    expect(errorBody('/auth/v1/token', { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'retry' })).toEqual({
      code: 503,
      error_code: 'service_unavailable',
      msg: 'retry',
    });
  });
});

describe('fieldErrors', () => {
  it('flattens nested errors into dotted field paths', () => {
    const details = fieldErrors([
      { property: 'name', constraints: { isString: 'name must be a string' }, children: [] },
      {
        property: 'items',
        children: [
          {
            property: '0',
            children: [
              { property: 'quantity', constraints: { min: 'quantity must not be less than 1' }, children: [] },
            ],
          },
        ],
      },
      { property: 'bogus', constraints: { whitelistValidation: 'property bogus should not exist' }, children: [] },
    ]);
    expect(details).toEqual([
      { field: 'name', message: 'name must be a string' },
      { field: 'items.0.quantity', message: 'quantity must not be less than 1' },
      { field: 'bogus', message: 'is not a known field' },
    ]);
  });
});
