import { applyDecorators } from '@nestjs/common';
import { ApiEnvelope } from '@app/core';
import { creditsUsed } from '../ai-function.js';
import { ApiCharged } from '../charged.decorator.js';
import { GENERATE_BLOG_COVER } from './generate-blog-cover.command.js';

/** POST /functions/v1/generate-blog-cover (a charged AI function) */
export const ApiGenerateBlogCover = () =>
  applyDecorators(
    ApiCharged(
      GENERATE_BLOG_COVER,
      'Generate a blog cover image',
      'Renders a 1200×630 PNG from `title`, `style` and `colors` and answers its public URL, served by this server ' +
        '(`/media/covers/<id>.png`). `store_id` may be left out when the caller has exactly one store.',
    ),
    ApiEnvelope(200, {
      image_url: {
        type: 'string',
        format: 'uri',
        description: 'The PNG, served by this server at `/media/covers/<id>.png` to anyone holding the URL',
        example: 'http://localhost:3000/media/covers/3b241101-e2bb-4255-8caf-4136c566a962.png',
      },
      ai_credits_used: creditsUsed(GENERATE_BLOG_COVER),
    }),
  );
