import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { isUUID } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { ApiError, Public } from '@app/core';
import { COVERS_PATH, CoverStore } from './cover-store.js';
import { ApiGetCover } from './covers.openapi.js';

/** Serves generated covers to anyone holding the URL, as a CDN would: the id is unguessable. */
@ApiTags('ai')
@Controller(COVERS_PATH)
export class CoversController {
  constructor(private readonly covers: CoverStore) {}

  @Get(':file')
  @Public()
  @ApiGetCover()
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
