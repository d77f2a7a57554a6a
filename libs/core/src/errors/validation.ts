import { ValidationPipe, type ValidationError } from '@nestjs/common';
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

/** The strict pipe used for every /functions/v1 route: unknown fields refused, types converted. */
export function strictValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ApiError.validation(fieldErrors(errors)),
  });
}

/** The dotted path of the first string (value or key) holding a NUL character, or null when there is none. */
export function pathWithNul(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (key.includes('\0')) return childPath;
    const found = pathWithNul(child, childPath);
    if (found !== null) return found;
  }
  return null;
}
