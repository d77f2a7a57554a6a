import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { socialPlatformDefinition, type SocialPlatformId } from '@app/social';
import { AiFunctionRunner } from '../ai-function.runner.js';
import { AiRepository } from '../ai.repository.js';
import { nextLocalSlot } from '../suggested-time.js';
import {
  SOCIAL_GENERATE_CONTENT,
  SocialGenerateContentCommand,
  type SocialGenerateContentAnswer,
} from './social-generate-content.command.js';
import { fitToPlatform, normalizeSocialDraft, SOCIAL_GENERATE_CONTENT_TASK } from './social-generate-content.task.js';

/**
 * Writes a post about a product of the caller's store (404 before any charge otherwise), fits it to
 * the platform and suggests the platform's next good hour in the store's time zone.
 */
@CommandHandler(SocialGenerateContentCommand)
export class SocialGenerateContentHandler implements ICommandHandler<SocialGenerateContentCommand> {
  constructor(
    private readonly runner: AiFunctionRunner,
    private readonly repository: AiRepository,
  ) {}

  async execute({ call, body }: SocialGenerateContentCommand): Promise<SocialGenerateContentAnswer> {
    const provider = this.runner.providerFor(SOCIAL_GENERATE_CONTENT_TASK, body.language);
    const platform = body.platform as SocialPlatformId;
    const product = await this.repository.productForPost(body.product_id, call.storeId);
    if (!product) throw ApiError.notFound('Product');
    return this.runner.charged(SOCIAL_GENERATE_CONTENT, call, async (cost) => {
      const { timezone, ...about } = product;
      const draft = await provider.run(SOCIAL_GENERATE_CONTENT_TASK, {
        product: about,
        platform,
        tone: body.tone,
        language: body.language,
        textLimit: socialPlatformDefinition(platform).textLimit,
      });
      const post = fitToPlatform(normalizeSocialDraft(draft), platform);
      return {
        content: {
          text: post.text,
          hashtags: post.hashtags,
          suggested_time: nextLocalSlot(new Date(), timezone, post.hour).toISOString(),
        },
        ai_credits_used: cost,
      };
    });
  }
}
