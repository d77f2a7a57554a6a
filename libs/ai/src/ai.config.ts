import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { defineSettings, Setting, SettingsGroup } from '@app/core';

export class AiConfig extends SettingsGroup {
  @Setting(
    '`local`: offline, deterministic templates and rendering, no key needed. `openai`: any OpenAI-compatible API.',
  )
  @IsIn(['local', 'openai'])
  AI_PROVIDER: 'local' | 'openai' = 'local';

  @Setting('Base URL of the OpenAI-compatible API (`AI_PROVIDER=openai`).')
  @IsUrl({ require_tld: false, require_protocol: true })
  AI_BASE_URL = 'https://api.openai.com/v1';

  @Setting(
    'Its API key. `AI_PROVIDER=openai` without a key: the AI functions answer 503 `NOT_CONFIGURED` and charge nothing.',
  )
  @IsOptional()
  @IsString()
  AI_API_KEY?: string;

  @Setting(
    'Chat model for the text functions; it must accept images (generate-product) and JSON-schema structured output.',
  )
  @IsString()
  @MinLength(1)
  AI_MODEL = 'gpt-4o-mini';

  @Setting('Image model for blog covers.')
  @IsString()
  @MinLength(1)
  AI_IMAGE_MODEL = 'gpt-image-1';

  @Setting('Longest wait for one provider request (text or image), per attempt (100–600000 ms).')
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600_000)
  AI_TIMEOUT_MS = 60_000;

  @Setting('Retries of a provider request answered 429 or 5xx, or timed out (0–5).')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(5)
  AI_MAX_RETRIES = 1;
}

export const aiConfig = defineSettings('ai', '@app/ai', AiConfig, {
  description: 'The AI provider the AI functions call.',
});
