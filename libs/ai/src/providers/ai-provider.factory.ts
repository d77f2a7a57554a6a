import type { Provider } from '@nestjs/common';
import { AppConfig } from '@app/core';
import { normalizeSocialDraft } from '../functions/normalize.js';
import { LocalAiProvider } from '../local/local-ai.provider.js';
import { OpenAiProvider } from '../openai/openai-ai.provider.js';
import { AI_PROVIDER, type AiProvider } from './ai-provider.js';

/**
 * The provider `AI_PROVIDER` names, or null when it cannot work here (`openai` without a key):
 * the functions then answer 503 NOT_CONFIGURED and charge nothing.
 */
export function createAiProvider(config: AppConfig): AiProvider | null {
  if (config.AI_PROVIDER === 'local') return withPlainSocialDrafts(new LocalAiProvider());
  if (!config.AI_API_KEY) return null;
  return withPlainSocialDrafts(
    new OpenAiProvider({
      baseUrl: config.AI_BASE_URL,
      apiKey: config.AI_API_KEY,
      model: config.AI_MODEL,
      imageModel: config.AI_IMAGE_MODEL,
      timeoutMs: config.AI_TIMEOUT_MS,
      maxRetries: config.AI_MAX_RETRIES,
    }),
  );
}

/**
 * `provider` with its social drafts made plain text (`normalizeSocialDraft`). The service composes
 * the post straight from the draft, unlike the other answers, which it normalises itself; this is
 * where a social draft gets the same rule, whichever provider wrote it.
 */
export function withPlainSocialDrafts(provider: AiProvider): AiProvider {
  return {
    id: provider.id,
    generateProduct: (input, signal) => provider.generateProduct(input, signal),
    generateCover: (input, signal) => provider.generateCover(input, signal),
    generateArticle: (input, signal) => provider.generateArticle(input, signal),
    researchSocialContext: (input, signal) => provider.researchSocialContext(input, signal),
    generateSocialContent: async (input, signal) => normalizeSocialDraft(await provider.generateSocialContent(input, signal)),
  };
}

export const AI_PROVIDER_PROVIDER: Provider = { provide: AI_PROVIDER, inject: [AppConfig], useFactory: createAiProvider };
