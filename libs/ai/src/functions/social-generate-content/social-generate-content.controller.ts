import { Body, Controller } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { ApiEnvelope, ApiFunctionRoute, StoreScoped } from '@app/core';
import { describeTextLimits, SocialPlatformField } from '@app/social';
import { creditsUsed, CurrentAiCall, type AiCall } from '../ai-function.js';
import { ApiLanguageRefused, ChargedRoute } from '../charged.decorator.js';
import { Language, ShortText, STORE_ID_EXAMPLE } from '../dto-fields.js';
import { GeneratedSocialContent, SOCIAL_GENERATE_CONTENT, SocialGenerateContentCommand } from './social-generate-content.command.js';
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

  @ChargedRoute(
    SOCIAL_GENERATE_CONTENT,
    'Write a social post about a product',
    "Writes a post about `product_id` (a product of the caller's stores; that store is charged) for `platform`. " +
      '`text` is the post without its hashtags; `text`, a blank line and the `hashtags` joined by spaces fit the platform’s ' +
      `limit (${describeTextLimits()}). \`suggested_time\` is the ` +
      "next good slot for the platform in the store's time zone, at least 30 minutes ahead.",
  )
  @StoreScoped({ from: 'product', in: 'body', need: 'ai', customers: false })
  @ApiLanguageRefused()
  @ApiEnvelope(200, { content: GeneratedSocialContent, ai_credits_used: creditsUsed(SOCIAL_GENERATE_CONTENT) })
  async socialGenerateContent(@Body() body: SocialGenerateContentDto, @CurrentAiCall() call: AiCall) {
    return { success: true, ...(await this.commands.execute(new SocialGenerateContentCommand(call, body))) };
  }
}
