import { Body, Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { IsString, IsUrl, MaxLength } from 'class-validator';
import { StoreScoped } from '@app/commerce';
import { ApiFunctionRoute, ApiSuccess } from '@app/core';
import { CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute, errorExample } from '../charged.decorator.js';
import { ChargedStore, Language } from '../dto-fields.js';
import { GENERATE_PRODUCT, GenerateProductCommand } from './generate-product.command.js';

export const MAX_IMAGE_URL_LENGTH = 2048;

export class GenerateProductDto {
  @ApiProperty({
    description: `A public http(s) URL of a JPEG, PNG, WebP, GIF or AVIF image, at most 10 MiB and 40 megapixels; fetched by the server`,
    example: 'https://images.example.com/mug.jpg',
    maxLength: MAX_IMAGE_URL_LENGTH,
  })
  @IsString()
  @MaxLength(MAX_IMAGE_URL_LENGTH)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'image_url must be an http(s) URL' })
  image_url!: string;

  @ChargedStore()
  store_id!: string;

  @Language()
  language!: string;
}

@ApiTags('ai')
@ApiFunctionRoute()
@Controller('functions/v1')
export class GenerateProductController {
  constructor(private readonly commands: CommandBus) {}

  @ChargedRoute(
    GENERATE_PRODUCT,
    'Generate a product record from a photo',
    'Fetches `image_url` (public http(s) only, no redirects, ≤ 10 MiB, JPEG/PNG/WebP/GIF/AVIF, ≤ 40 megapixels) and drafts ' +
      'a product in `language` (`name_en` always English). An image that cannot be fetched or read, or a `language` the ' +
      'provider does not write → 422 before any charge. `ai_credits_used` sits inside `product`.',
  )
  @StoreScoped({ from: 'body', need: 'ai', customers: false })
  @ApiUnprocessableEntityResponse({
    description: 'The image cannot be fetched or read, or the provider does not write `language`; nothing charged',
    schema: errorExample('UNPROCESSABLE', 'image_url answered HTTP 404', [{ field: 'image_url', message: 'image_url answered HTTP 404' }]),
  })
  @ApiSuccess(200, {
    product: {
      name: 'Mug en céramique bleu nuit',
      name_en: 'Midnight blue ceramic mug',
      description: 'A glazed ceramic mug in deep midnight blue…',
      price: 24.9,
      compare_price: 32,
      category: 'Maison',
      seo_keywords: ['mug', 'céramique', 'bleu'],
      ai_credits_used: 2,
    },
  })
  async generateProduct(@Body() body: GenerateProductDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new GenerateProductCommand(call, body))) };
  }
}
