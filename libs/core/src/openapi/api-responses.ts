import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
  type SchemaObject,
} from '@nestjs/swagger';
import { API_ERROR_CODES, type ApiErrorCode } from '../errors/api-error.js';

/** One problem with one field of a request. */
export class FieldErrorBody {
  @ApiProperty({ description: 'The field, dotted for nested ones', example: 'name' })
  field!: string;
  @ApiProperty({ example: 'name should not be empty' })
  message!: string;
  @ApiPropertyOptional({ description: 'For a rule of one social platform: which' })
  platform?: string;
}

/** The `error` of an error envelope. */
export class ErrorBody {
  @ApiProperty({ enum: API_ERROR_CODES, enumName: 'ErrorCode', example: 'VALIDATION_FAILED' })
  code!: ApiErrorCode;
  @ApiProperty({ example: 'Request validation failed' })
  message!: string;
  @ApiPropertyOptional({
    description:
      'For VALIDATION_FAILED (and a refused `language`): each field and what is wrong with it. For some other ' +
      'codes an object of figures, e.g. INSUFFICIENT_CREDITS `{required, balance}`, RATE_LIMITED `{limit, ' +
      'window_seconds, retry_after_seconds}`',
    oneOf: [
      { type: 'array', items: { $ref: getSchemaPath(FieldErrorBody) } },
      { type: 'object', additionalProperties: true },
    ],
  })
  details?: FieldErrorBody[] | Record<string, unknown>;
}

/** Every 4xx and 5xx answer of /functions/v1: `{success: false, error: {code, message, details?}}`. */
export class ErrorEnvelope {
  @ApiProperty({ type: 'boolean', enum: [false] })
  success!: false;
  @ApiProperty({ type: ErrorBody })
  error!: ErrorBody;
}

/**
 * Documents an error answer of /functions/v1 with the envelope's schema and an example:
 * `@ApiErrorResponse(403, 'Only the store owner', { code: 'FORBIDDEN', message: '…' })`.
 */
export const ApiErrorResponse = (
  status: number,
  description: string,
  example?: {
    code: ApiErrorCode;
    message: string;
    details?: { field: string; message: string; platform?: string }[] | Record<string, unknown>;
  },
) =>
  applyDecorators(
    ApiExtraModels(ErrorEnvelope, FieldErrorBody),
    ApiResponse({
      status,
      description,
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(ErrorEnvelope) },
          ...(example ? { example: { success: false, error: example } } : {}),
        },
      },
    }),
  );

/**
 * Documents an error answer of /functions/v1 whose `details` are not a list of fields (OUT_OF_STOCK,
 * INVALID_TRANSITION, SERVICE_UNAVAILABLE…): the envelope's schema with `details` as given, so the
 * example validates against it. `@ApiErrorDetailsResponse(409, 'Not enough stock', { type: 'object', … }, { code,
 * message, details })`.
 */
export const ApiErrorDetailsResponse = (
  status: number,
  description: string,
  details: SchemaObject,
  example: { code: ApiErrorCode; message: string; details: unknown },
) =>
  applyDecorators(
    ApiExtraModels(ErrorEnvelope),
    ApiResponse({
      status,
      description,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['success', 'error'],
            properties: {
              success: { type: 'boolean', enum: [false] },
              error: {
                type: 'object',
                required: ['code', 'message'],
                properties: { code: { $ref: getSchemaPath('ErrorCode') }, message: { type: 'string' }, details },
              },
            },
          },
          example: { success: false, error: example },
        },
      },
    }),
  );

/**
 * One field of a success body: a response DTO class (its `@ApiProperty` fields become a component
 * schema, referenced with `$ref`), `[Dto]` for a list of them, or a plain schema for a scalar.
 */
export type EnvelopeField = Type<unknown> | [Type<unknown>] | SchemaObject;

/**
 * Documents a success answer `{success: true, ...fields}` with a typed schema, so a generated
 * client knows every field: `@ApiEnvelope(201, { store: StoreDto })`,
 * `@ApiEnvelope(200, { data: [StoreDto], next_cursor: NEXT_CURSOR })`. Examples come from the
 * DTOs' `@ApiProperty({ example })`.
 */
export const ApiEnvelope = (status: 200 | 201 | 202, fields: Record<string, EnvelopeField>, description?: string) => {
  const models: Type<unknown>[] = [];
  const properties: Record<string, SchemaObject | { $ref: string }> = {
    success: { type: 'boolean', enum: [true], description: 'Always `true` on a 2xx answer' },
  };
  for (const [name, field] of Object.entries(fields)) {
    if (typeof field === 'function') {
      models.push(field);
      properties[name] = { $ref: getSchemaPath(field) };
    } else if (Array.isArray(field)) {
      models.push(field[0]);
      properties[name] = { type: 'array', items: { $ref: getSchemaPath(field[0]) } };
    } else {
      properties[name] = field;
    }
  }
  return applyDecorators(
    ApiExtraModels(...models),
    ApiResponse({
      status,
      description: description ?? (status === 201 ? 'Created' : status === 202 ? 'Accepted' : 'OK'),
      schema: { type: 'object', required: ['success', ...Object.keys(fields)], properties },
    }),
  );
};

/** The `next_cursor` of a page: the cursor for the next page, `null` on the last one. */
export const NEXT_CURSOR: SchemaObject = {
  type: 'string',
  nullable: true,
  description: 'Pass as `cursor` for the next page; `null` on the last page',
  example: null,
};

/** Documents a page of a list: `{success: true, data: [Dto], next_cursor}`. */
export const ApiPage = (item: Type<unknown>, description?: string) =>
  ApiEnvelope(200, { data: [item], next_cursor: NEXT_CURSOR }, description);

/** Documents the answers every signed-in /functions/v1 route can give: 400 with field details and 401. */
export const ApiFunctionRoute = () =>
  applyDecorators(
    ApiBearerAuth(),
    ApiErrorResponse(400, 'Validation failed; `details` lists each field', {
      code: 'VALIDATION_FAILED',
      message: 'Request validation failed',
      details: [{ field: 'name', message: 'name should not be empty' }],
    }),
    ApiErrorResponse(401, 'Missing, expired or invalid token, a wrong apikey, or the public key alone', {
      code: 'UNAUTHENTICATED',
      message: 'Invalid or expired access token',
    }),
  );
