import { Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, IsUrl, MaxLength } from 'class-validator';
import { ApiFunctionRoute, StoreScoped, Body } from '@app/core';
import { CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute } from '../charged.decorator.js';
import { ChargedStore, Language } from '../dto-fields.js';
import { GENERATE_PRODUCT, GenerateProductCommand } from './generate-product.command.js';
import { ApiGenerateProduct } from './generate-product.openapi.js';

export const MAX_IMAGE_URL_LENGTH = 2048;

export class GenerateProductDto {
  @ApiProperty({
    description:
      `A public http(s) URL of a JPEG, PNG, WebP, GIF or AVIF image, ` +
      `at most 10 MiB and 40 megapixels; fetched by the server`,
    example: 'https://images.example.com/mug.jpg',
    maxLength: MAX_IMAGE_URL_LENGTH,
  })
  @IsString()
  @MaxLength(MAX_IMAGE_URL_LENGTH)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'image_url must be an http(s) URL' },
  )
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

  @ChargedRoute(GENERATE_PRODUCT)
  @StoreScoped({ from: 'body', need: 'ai', customers: false })
  @ApiGenerateProduct()
  async generateProduct(@Body() body: GenerateProductDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new GenerateProductCommand(call, body))) };
  }
}
