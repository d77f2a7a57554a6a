import { Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { ApiFunctionRoute, StoreScoped, Body } from '@app/core';
import { SocialPlatformField } from '@app/social';
import { CurrentAiCall, type AiCall } from '../ai-function.js';
import { ChargedRoute } from '../charged.decorator.js';
import { Language, ShortText, STORE_ID_EXAMPLE } from '../dto-fields.js';
import { SOCIAL_GENERATE_CONTENT, SocialGenerateContentCommand } from './social-generate-content.command.js';
import { ApiSocialGenerateContent } from './social-generate-content.openapi.js';
import '@app/commerce'; // commerce registers the store resource product (the body's product_id)

export class SocialGenerateContentDto {
  @ApiProperty({
    format: 'uuid',
    description: "A product of one of the caller's stores (that store is charged)",
    example: STORE_ID_EXAMPLE,
  })
  @IsUUID()
  product_id!: string;

  @SocialPlatformField({ description: 'The platform the post is written for', example: 'instagram' })
  platform!: string;

  @ShortText('Tone of voice', 'playful')
  tone!: string;

  @Language()
  language!: string;
}

@ApiTags('ai')
@ApiFunctionRoute()
@Controller('functions/v1')
export class SocialGenerateContentController {
  constructor(private readonly commands: CommandBus) {}

  @ChargedRoute(SOCIAL_GENERATE_CONTENT)
  @StoreScoped({ from: 'product', in: 'body', need: 'ai', customers: false })
  @ApiSocialGenerateContent()
  async socialGenerateContent(@Body() body: SocialGenerateContentDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new SocialGenerateContentCommand(call, body))) };
  }
}
