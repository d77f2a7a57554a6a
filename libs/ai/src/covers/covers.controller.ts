import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { isUUID } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { ApiError, ApiErrorResponse, Public } from '@app/core';
import { COVERS_PATH, CoverStore } from './cover-store.js';

/** Serves generated covers to anyone holding the URL, as a CDN would: the id is unguessable. */
@ApiTags('ai')
@Controller(COVERS_PATH)
export class CoversController {
  constructor(private readonly covers: CoverStore) {}

  @Get(':file')
  @Public()
  @ApiOperation({
    summary: 'A generated blog cover (PNG, 1200×630)',
    description: 'The `image_url` that `generate-blog-cover` answers. Public, immutable, cacheable for a year.',
  })
  @ApiParam({ name: 'file', example: '3b241101-e2bb-4255-8caf-4136c566a962.png' })
  @ApiOkResponse({ description: 'The PNG', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } })
  @ApiErrorResponse(404, 'No such cover (a name that is not `<uuid>.png`, or an unknown id)', {
    code: 'NOT_FOUND',
    message: 'Image not found',
  })
  async get(@Param('file') file: string, @Res() reply: FastifyReply): Promise<void> {
    const id = file.endsWith('.png') ? file.slice(0, -4) : '';
    const cover = isUUID(id) ? await this.covers.find(id) : null;
    if (!cover) throw ApiError.notFound('Image');
    await reply
      .header('content-type', cover.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(cover.bytes);
  }
}
