import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AiFunctionRunner } from '../ai-function.runner.js';
import {
  RESEARCH_SOCIAL_CONTEXT,
  ResearchSocialContextCommand,
  type ResearchSocialContextAnswer,
} from './research-social-context.command.js';
import { normalizeInsights, RESEARCH_SOCIAL_CONTEXT_TASK } from './research-social-context.task.js';

/** Researches the query on the platforms. */
@CommandHandler(ResearchSocialContextCommand)
export class ResearchSocialContextHandler implements ICommandHandler<ResearchSocialContextCommand> {
  constructor(private readonly runner: AiFunctionRunner) {}

  async execute({ call, body }: ResearchSocialContextCommand): Promise<ResearchSocialContextAnswer> {
    const provider = this.runner.providerFor(RESEARCH_SOCIAL_CONTEXT_TASK);
    return this.runner.charged(RESEARCH_SOCIAL_CONTEXT, call, async (cost) => {
      const insights = normalizeInsights(
        await provider.run(RESEARCH_SOCIAL_CONTEXT_TASK, { query: body.query, platforms: body.platforms }),
      );
      return { insights, ai_credits_used: cost };
    });
  }
}
