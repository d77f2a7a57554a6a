import { GENERATE_BLOG_AUTOPILOT } from './generate-blog-autopilot/generate-blog-autopilot.command.js';
import { GenerateBlogAutopilotController } from './generate-blog-autopilot/generate-blog-autopilot.controller.js';
import { GenerateBlogAutopilotHandler } from './generate-blog-autopilot/generate-blog-autopilot.handler.js';
import { GENERATE_BLOG_COVER } from './generate-blog-cover/generate-blog-cover.command.js';
import { GenerateBlogCoverController } from './generate-blog-cover/generate-blog-cover.controller.js';
import { GenerateBlogCoverHandler } from './generate-blog-cover/generate-blog-cover.handler.js';
import { GENERATE_PRODUCT } from './generate-product/generate-product.command.js';
import { GenerateProductController } from './generate-product/generate-product.controller.js';
import { GenerateProductHandler } from './generate-product/generate-product.handler.js';
import { RESEARCH_SOCIAL_CONTEXT } from './research-social-context/research-social-context.command.js';
import { ResearchSocialContextController } from './research-social-context/research-social-context.controller.js';
import { ResearchSocialContextHandler } from './research-social-context/research-social-context.handler.js';
import { SOCIAL_GENERATE_CONTENT } from './social-generate-content/social-generate-content.command.js';
import { SocialGenerateContentController } from './social-generate-content/social-generate-content.controller.js';
import { SocialGenerateContentHandler } from './social-generate-content/social-generate-content.handler.js';

/**
 * The AI functions: one folder each (functions/<name>/: command with its cost and hourly maximum,
 * handler, controller with the body DTO, task with the provider prompt, output schema, offline
 * generator and normalisation). This list is the one place that names them all: billing's price
 * list, the hourly maxima, `GET /functions/v1/credits`' usage (in this order) and the routes derive
 * from it. Adding a function: docs/extending.md § An AI function.
 */
export const AI_FUNCTIONS = [
  GENERATE_PRODUCT,
  GENERATE_BLOG_COVER,
  GENERATE_BLOG_AUTOPILOT,
  RESEARCH_SOCIAL_CONTEXT,
  SOCIAL_GENERATE_CONTENT,
] as const;

/** A charged function's name (its route): `generate-product`, … */
export type AiFunctionName = (typeof AI_FUNCTIONS)[number]['name'];

export const AI_FUNCTION_HANDLERS = [
  GenerateProductHandler,
  GenerateBlogCoverHandler,
  GenerateBlogAutopilotHandler,
  ResearchSocialContextHandler,
  SocialGenerateContentHandler,
];

/** In the order of their routes in the OpenAPI document. */
export const AI_FUNCTION_CONTROLLERS = [
  GenerateProductController,
  GenerateBlogCoverController,
  GenerateBlogAutopilotController,
  ResearchSocialContextController,
  SocialGenerateContentController,
];

export function isAiFunctionName(value: string): value is AiFunctionName {
  return AI_FUNCTIONS.some((fn) => fn.name === value);
}
