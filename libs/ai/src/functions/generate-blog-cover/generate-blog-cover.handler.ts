import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CoverStore } from '../../covers/cover-store.js';
import { AiFunctionRunner } from '../ai-function.runner.js';
import {
  GENERATE_BLOG_COVER,
  GenerateBlogCoverCommand,
  type GenerateBlogCoverAnswer,
} from './generate-blog-cover.command.js';
import { GENERATE_BLOG_COVER_TASK, normalizeCoverImage } from './generate-blog-cover.task.js';

/** Draws the cover, stores it as a 1200×630 PNG and returns its public URL. */
@CommandHandler(GenerateBlogCoverCommand)
export class GenerateBlogCoverHandler implements ICommandHandler<GenerateBlogCoverCommand> {
  constructor(
    private readonly runner: AiFunctionRunner,
    private readonly covers: CoverStore,
  ) {}

  async execute({ call, body }: GenerateBlogCoverCommand): Promise<GenerateBlogCoverAnswer> {
    const provider = this.runner.providerFor(GENERATE_BLOG_COVER_TASK);
    return this.runner.charged(GENERATE_BLOG_COVER, call, async (cost) => {
      const image = await provider.run(GENERATE_BLOG_COVER_TASK, {
        title: body.title,
        style: body.style,
        colors: body.colors,
      });
      const png = await normalizeCoverImage(image);
      return { image_url: await this.covers.save(call.storeId, png), ai_credits_used: cost };
    });
  }
}
