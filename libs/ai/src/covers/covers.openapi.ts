import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiErrorResponse } from '@app/core';

/** GET /media/covers/{file} (COVERS_PATH) */
export const ApiGetCover = () =>
  applyDecorators(
    ApiOperation({
      summary: 'A generated blog cover (PNG, 1200×630)',
      description: 'The `image_url` that `generate-blog-cover` answers. Public, immutable, cacheable for a year.',
    }),
    ApiParam({ name: 'file', example: '3b241101-e2bb-4255-8caf-4136c566a962.png' }),
    ApiOkResponse({
      description: 'The PNG',
      content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
    }),
    ApiErrorResponse(404, 'No such cover (a name that is not `<uuid>.png`, or an unknown id)', {
      code: 'NOT_FOUND',
      message: 'Image not found',
    }),
  );
