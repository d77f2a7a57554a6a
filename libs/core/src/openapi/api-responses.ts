import { applyDecorators } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';

/** Documents a success answer: `{success: true, ...fields}` with an example. */
export const ApiSuccess = (status: 200 | 201, fields: Record<string, unknown>, description?: string) =>
  ApiResponse({
    status,
    description: description ?? (status === 201 ? 'Created' : 'OK'),
    schema: { example: { success: true, ...fields } },
  });

/** Documents the answers every signed-in /functions/v1 route can give: 400 with field details and 401. */
export const ApiFunctionRoute = () =>
  applyDecorators(
    ApiBearerAuth(),
    ApiBadRequestResponse({
      description: 'Validation failed; `details` lists each field',
      schema: {
        example: {
          success: false,
          error: {
            code: 'VALIDATION_FAILED',
            message: 'Request validation failed',
            details: [{ field: 'name', message: 'name should not be empty' }],
          },
        },
      },
    }),
    ApiUnauthorizedResponse({
      description: 'Missing, expired or invalid token, a wrong apikey, or the public key alone',
      schema: { example: { success: false, error: { code: 'UNAUTHENTICATED', message: 'Invalid or expired access token' } } },
    }),
  );
