import { applyDecorators } from '@nestjs/common';
import { ApiEnvelope, ApiErrorResponse } from '@app/core';
import { ApiCharged } from '../charged.decorator.js';
import { GENERATE_PRODUCT, GeneratedProduct } from './generate-product.command.js';

/** POST /functions/v1/generate-product (a charged AI function) */
export const ApiGenerateProduct = () =>
  applyDecorators(
    ApiCharged(
      GENERATE_PRODUCT,
      'Generate a product record from a photo',
      'Fetches `image_url` (public http(s) only, no redirects, ≤ 10 MiB, JPEG/PNG/WebP/GIF/AVIF, ≤ 40 megapixels) ' +
        'and drafts a product in `language` (`name_en` always English). An image that cannot be fetched or read, or ' +
        'a `language` the provider does not write → 422 before any charge. `ai_credits_used` sits inside `product`.',
    ),
    ApiErrorResponse(
      422,
      'The image cannot be fetched or read, or the provider does not write `language`; nothing charged',
      {
        code: 'UNPROCESSABLE',
        message: 'image_url answered HTTP 404',
        details: [{ field: 'image_url', message: 'image_url answered HTTP 404' }],
      },
    ),
    ApiEnvelope(200, { product: GeneratedProduct }),
  );
