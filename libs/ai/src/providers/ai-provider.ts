import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { StructuredOutput } from '../openai/schemas.js';

/**
 * What every AI provider does, whichever model sits behind it. A provider is an engine: it runs the
 * task of an AI function (`AiTask`, declared in the function's folder) and produces the content only.
 * Charging, store access, idempotency, refusing a language, normalising the answer, fitting text to a
 * platform and the suggested publishing time belong to the function's handler, the same for every
 * provider.
 */

/** A fetched image, decoded: what the product generator may look at. */
export interface ImageFacts {
  /** The raw bytes as fetched (vision models get them as a data URL). */
  bytes: Buffer;
  /** `image/jpeg`, `image/png`, `image/webp`, `image/gif` or `image/avif`. */
  mime: string;
  /** `jpeg`, `png`, `webp`, `gif` or `avif`. */
  format: string;
  width: number;
  height: number;
  /** Up to 5 dominant colours, most dominant first, as lower-case `#rrggbb`. */
  dominantColors: string[];
  /** 0 (black) … 1 (white), the mean perceived lightness. */
  lightness: number;
  hasAlpha: boolean;
}

/** The primary language of a BCP 47 tag, lower case: `pt-BR` → `pt`. What providers list their languages by. */
export function primaryLanguage(tag: string): string {
  return tag.trim().split(/[-_]/)[0].toLowerCase();
}

/** An image in any format sharp reads; the cover handler turns it into the stored 1200×630 PNG. */
export interface GeneratedImage {
  bytes: Buffer;
}

/** How the offline `local` provider does a task: generated from templates, deterministically. */
export interface LocalTask<Input, Output> {
  /**
   * The languages it writes, as primary language subtags (`pt` covers `pt-BR`); absent when the
   * task's input has no language.
   */
  readonly languages?: readonly string[];
  generate(input: Input): Output | Promise<Output>;
}

/** An OpenAI-compatible chat completion with JSON-schema structured output. */
export interface ChatTask<Input, Output> {
  readonly kind: 'chat';
  /** The answer's schema, sent as `response_format` and checked again on our side. */
  readonly output: StructuredOutput<Output>;
  /** The system message. */
  readonly system: string;
  /** The user message: text, or parts (an image as a vision input). */
  user(input: Input): string | ChatCompletionContentPart[];
  /** Rules the schema cannot express, applied to the validated answer; throws AiProviderError when it breaks them. */
  accept?(answer: Output): Output;
}

/** An OpenAI-compatible image generation (the images API). */
export interface ImageTask<Input> {
  readonly kind: 'image';
  prompt(input: Input): string;
}

/**
 * How each kind of provider does one AI function. Declared in the function's folder
 * (`functions/<name>/<name>.task.ts`), so a new function adds no method to any provider.
 */
export interface AiTask<Input, Output> {
  /** The function's route name, for logs. */
  readonly name: string;
  readonly local: LocalTask<Input, Output>;
  readonly openai: Output extends GeneratedImage ? ImageTask<Input> : ChatTask<Input, Output>;
}

/**
 * The provider failed or answered something unusable: the caller is refunded and gets 502
 * UPSTREAM_FAILED with `message` (never the provider's raw answer, which may echo secrets).
 */
export class AiProviderError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'unavailable' | 'rate_limited' | 'invalid_answer' | 'refused',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AiProviderError';
  }
}

/** The provider's answer breaks the contract: a 502 with a refund. */
export function unusableAnswer(what: string): AiProviderError {
  return new AiProviderError(`The AI provider's answer is unusable: ${what}`, 'invalid_answer');
}

export interface AiProvider {
  /** `local` or `openai`. */
  readonly id: string;
  /** The languages this provider writes `task` in (primary subtags); null: any language. */
  languagesFor(task: AiTask<any, any>): readonly string[] | null;
  /** Does `task` for `input`; throws AiProviderError when the provider fails or answers something unusable. */
  run<Input, Output>(task: AiTask<Input, Output>, input: Input, signal?: AbortSignal): Promise<Output>;
}

/** Nest injection token of the configured provider. */
export const AI_PROVIDER = Symbol('AI_PROVIDER');
