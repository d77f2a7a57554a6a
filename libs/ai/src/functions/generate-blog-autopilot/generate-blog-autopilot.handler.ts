import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AiFunctionRunner } from '../ai-function.runner.js';
import {
  GENERATE_BLOG_AUTOPILOT,
  GenerateBlogAutopilotCommand,
  type GenerateBlogAutopilotAnswer,
} from './generate-blog-autopilot.command.js';
import { GENERATE_BLOG_AUTOPILOT_TASK, normalizeArticle } from './generate-blog-autopilot.task.js';

/** Writes the article and returns it sanitised. */
@CommandHandler(GenerateBlogAutopilotCommand)
export class GenerateBlogAutopilotHandler implements ICommandHandler<GenerateBlogAutopilotCommand> {
  constructor(private readonly runner: AiFunctionRunner) {}

  async execute({ call, body }: GenerateBlogAutopilotCommand): Promise<GenerateBlogAutopilotAnswer> {
    const provider = this.runner.providerFor(GENERATE_BLOG_AUTOPILOT_TASK, body.language);
    return this.runner.charged(GENERATE_BLOG_AUTOPILOT, call, async (cost) => {
      const { topic, tone, length, language } = body;
      const article = normalizeArticle(
        await provider.run(GENERATE_BLOG_AUTOPILOT_TASK, { topic, tone, length, language }),
      );
      return { article, ai_credits_used: cost };
    });
  }
}
