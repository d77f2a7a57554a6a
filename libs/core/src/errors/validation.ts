import type { ValidationError } from '@nestjs/common';
import { StrictValidationPipe } from '../validation/strict-validation-pipe.js';
import { ApiError, type FieldError } from './api-error.js';

/** Flattens class-validator errors into `{field, message}` pairs with dotted paths (`items.0.quantity`). */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      message: message.replace(/^property (\S+) should not exist$/, 'is not a known field'),
    }));
    return [...own, ...fieldErrors(error.children ?? [], field)];
  });
}

/** The options of the strict pipe: unknown fields refused, types converted, errors as the envelope's field list. */
export const STRICT_VALIDATION_OPTIONS = Object.freeze({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  validationError: Object.freeze({ target: false, value: false }),
  exceptionFactory: (errors: ValidationError[]) => ApiError.validation(fieldErrors(errors)),
});

/**
 * The strict pipe used for every /functions/v1 route: Nest's ValidationPipe with these options, with
 * class-validator's lookups kept and valid queries remembered (`StrictValidationPipe`).
 */
export function strictValidationPipe(): StrictValidationPipe {
  return new StrictValidationPipe(STRICT_VALIDATION_OPTIONS);
}

/** Bodies nested deeper than this are refused: no route takes more than a few levels, and the validators recurse. */
export const MAX_BODY_DEPTH = 32;

const LONE_SURROGATE = /\p{Cs}/u;

/** Why a string of a body cannot be taken, or null when it can. */
function stringProblem(text: string): string | null {
  if (text.includes('\0')) return 'must not contain NUL (\\u0000) characters';
  // JSON escapes can spell half of a UTF-16 pair; such text has no UTF-8 form for PostgreSQL, and validators throw on
  // it.
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (no unpaired surrogate \\uD800-\\uDFFF)';
  return null;
}

/**
 * The first thing in a parsed JSON body that no route can take, as a field error, or null: a string (value
 * or key) holding a NUL character, which PostgreSQL text cannot hold, or an unpaired surrogate, or nesting
 * past MAX_BODY_DEPTH.
 */
export function bodyShapeError(value: unknown, path = '', depth = 0): FieldError | null {
  if (typeof value === 'string') {
    const message = stringProblem(value);
    return message === null ? null : { field: path || 'body', message };
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_BODY_DEPTH)
    return { field: path || 'body', message: `is nested deeper than ${MAX_BODY_DEPTH} levels` };
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const keyMessage = stringProblem(key);
    if (keyMessage !== null) return { field: childPath, message: keyMessage };
    const found = bodyShapeError(child, childPath, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
