import type { Provider } from '@nestjs/common';
import { LocalAiProvider } from '../local/local-ai.provider.js';
import { OpenAiProvider } from '../openai/openai-ai.provider.js';
import { AI_PROVIDER, type AiProvider } from './ai-provider.js';
import { aiConfig, type AiConfig } from '../ai.config.js';

/**
 * The provider `AI_PROVIDER` names, or null when it cannot work here (`openai` without a key):
 * the functions then answer 503 NOT_CONFIGURED and charge nothing.
 */
export function createAiProvider(config: AiConfig): AiProvider | null {
  if (config.AI_PROVIDER === 'local') return new LocalAiProvider();
  if (!config.AI_API_KEY) return null;
  return new OpenAiProvider({
    baseUrl: config.AI_BASE_URL,
    apiKey: config.AI_API_KEY,
    model: config.AI_MODEL,
    imageModel: config.AI_IMAGE_MODEL,
    timeoutMs: config.AI_TIMEOUT_MS,
    maxRetries: config.AI_MAX_RETRIES,
  });
}

export const AI_PROVIDER_PROVIDER: Provider = {
  provide: AI_PROVIDER,
  inject: [aiConfig.KEY],
  useFactory: createAiProvider,
};
