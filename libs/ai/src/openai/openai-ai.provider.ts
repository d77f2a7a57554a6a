import { Ajv, type ValidateFunction } from 'ajv';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionContentPart, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ImageGenerateParamsNonStreaming } from 'openai/resources/images';
import {
  AiProviderError,
  type AiProvider,
  type ArticleDraft,
  type ArticleInput,
  type ArticleLength,
  type CoverImage,
  type CoverInput,
  type InsightsDraft,
  type InsightsInput,
  type ProductDraft,
  type ProductInput,
  type SocialContentDraft,
  type SocialContentInput,
} from '../providers/ai-provider.js';
import {
  ARTICLE_SCHEMA,
  INSIGHTS_SCHEMA,
  PRODUCT_SCHEMA,
  SCHEMA_NAMES,
  SOCIAL_CONTENT_SCHEMA,
  wireSchema,
  type JsonSchema,
  type SchemaName,
} from './schemas.js';

export interface OpenAiProviderOptions {
  /** Base URL of the OpenAI-compatible API, with its version path (`https://api.openai.com/v1`). */
  baseUrl: string;
  apiKey: string;
  /** Chat model for the text functions; it must accept images and JSON-schema structured output. */
  model: string;
  /** Image model for covers (`gpt-image-*` or `dall-e-*`). */
  imageModel: string;
  /** Longest wait for one attempt. */
  timeoutMs: number;
  /** Retries after a timeout, a connection failure, a 429 or a 5xx (the client backs off between them). */
  maxRetries: number;
}

/** Rough article sizes, in words. */
const ARTICLE_WORDS: Record<ArticleLength, number> = { short: 300, medium: 750, long: 1400 };

// Compiled once: ajv generates a function per schema. `strict` makes a typo in a schema a startup error.
const ajv = new Ajv({ strict: true, allErrors: false });
const validators = {
  product: ajv.compile<ProductDraft>(PRODUCT_SCHEMA),
  article: ajv.compile<ArticleDraft>(ARTICLE_SCHEMA),
  insights: ajv.compile<InsightsDraft>(INSIGHTS_SCHEMA),
  socialContent: ajv.compile<SocialContentDraft>(SOCIAL_CONTENT_SCHEMA),
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const cents = (value: number) => Math.round(value * 100) / 100;

function invalid(what: string): AiProviderError {
  return new AiProviderError(`The AI provider's answer is unusable: ${what}`, 'invalid_answer');
}

/**
 * The AI functions on any OpenAI-compatible API, through the official client: chat completions with
 * JSON-schema structured output for the text functions (the product photo as a vision input), the
 * images API for covers. Every answer is validated before it is returned; failures become
 * `AiProviderError`s whose messages never carry the model's output or the key.
 */
export class OpenAiProvider implements AiProvider {
  readonly id = 'openai';
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly imageModel: string;
  private readonly timeoutMs: number;

  constructor(options: OpenAiProviderOptions) {
    // The key stays inside the client: this object keeps no copy that could end up in a log.
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey,
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
    });
    this.model = options.model;
    this.imageModel = options.imageModel;
    this.timeoutMs = options.timeoutMs;
  }

  async generateProduct(input: ProductInput, signal?: AbortSignal): Promise<ProductDraft> {
    const { image } = input;
    const facts = [
      `Photo: ${image.format}, ${image.width}×${image.height} px`,
      image.dominantColors.length ? `dominant colours ${image.dominantColors.join(', ')}` : undefined,
      image.hasAlpha ? 'transparent background' : undefined,
    ].filter(Boolean);
    const parts: ChatCompletionContentPart[] = [
      {
        type: 'text',
        text: [
          'Write the store listing of the product in this photo.',
          `Language: ${input.language} (name, description, category and seo_keywords in this language; name_en in English).`,
          `Currency: ${input.currency} (price and compare_price in this currency, at most 2 decimals, compare_price >= price).`,
          `${facts.join(', ')}.`,
        ].join('\n'),
      },
      { type: 'image_url', image_url: { url: `data:${image.mime};base64,${image.bytes.toString('base64')}` } },
    ];
    const draft = await this.complete(
      SCHEMA_NAMES.product,
      PRODUCT_SCHEMA,
      validators.product,
      'You write product listings for an online store. Describe only what the photo shows; suggest a realistic retail price. ' +
        'Answer with the JSON object the schema describes.',
      parts,
      signal,
    );
    // Cents, then the cross-field rule the schema cannot express.
    const price = cents(draft.price);
    const comparePrice = cents(draft.compare_price);
    if (price <= 0) throw invalid('price rounds to 0');
    if (comparePrice < price) throw invalid('compare_price is below price');
    return { ...draft, price, compare_price: comparePrice };
  }

  async generateArticle(input: ArticleInput, signal?: AbortSignal): Promise<ArticleDraft> {
    const words = ARTICLE_WORDS[input.length];
    return this.complete(
      SCHEMA_NAMES.article,
      ARTICLE_SCHEMA,
      validators.article,
      "You write blog articles for an online store's blog. The content is HTML with <h2> section headings, <p> paragraphs " +
        'and <ul>/<li> lists only: no <h1> (the title is separate), no other elements, no attributes, no scripts or styles. ' +
        'Answer with the JSON object the schema describes.',
      [
        'Write a blog article.',
        // The caller's free text goes in as JSON so it reads as data, not as more instructions.
        `Request: ${JSON.stringify({ topic: input.topic, tone: input.tone, language: input.language })}`,
        `Length: ${input.length}, about ${words} words in the content.`,
        `All fields in the language ${input.language}; seo_title at most 70 characters, seo_description at most 170, excerpt at most 400.`,
      ].join('\n'),
      signal,
    );
  }

  async researchSocialContext(input: InsightsInput, signal?: AbortSignal): Promise<InsightsDraft> {
    return this.complete(
      SCHEMA_NAMES.insights,
      INSIGHTS_SCHEMA,
      validators.insights,
      'You are a social media analyst helping an online store plan its posts. Answer with the JSON object the schema describes.',
      [
        'Summarise the social media context of this query for the listed platforms: trending topics, popular hashtags ' +
          '(each beginning with #), the audience sentiment and recommendations.',
        `Request: ${JSON.stringify({ query: input.query, platforms: input.platforms })}`,
      ].join('\n'),
      signal,
    );
  }

  async generateSocialContent(input: SocialContentInput, signal?: AbortSignal): Promise<SocialContentDraft> {
    const { product } = input;
    return this.complete(
      SCHEMA_NAMES.socialContent,
      SOCIAL_CONTENT_SCHEMA,
      validators.socialContent,
      'You write social media posts for an online store. Answer with the JSON object the schema describes.',
      [
        `Write a ${input.platform} post promoting this product, in the language ${input.language}.`,
        `Request: ${JSON.stringify({ platform: input.platform, tone: input.tone, language: input.language })}`,
        `Product: ${JSON.stringify({
          name: product.name,
          description: product.description,
          price: product.price,
          currency: product.currency,
          category: product.category,
          seo_keywords: product.seo_keywords,
        })}`,
        `The text must not contain hashtags (give them in hashtags, each beginning with #) and, with the hashtags appended, ` +
          `fit in ${input.textLimit} characters. best_hour is the hour of day (0-23, local time) this post would do best.`,
      ].join('\n'),
      signal,
    );
  }

  async generateCover(input: CoverInput, signal?: AbortSignal): Promise<CoverImage> {
    const dallE = this.imageModel.startsWith('dall-e');
    const params: ImageGenerateParamsNonStreaming = {
      model: this.imageModel,
      prompt:
        `A wide blog cover image for an article titled ${JSON.stringify(input.title)}. ` +
        `Style: ${input.style}. Colour palette: ${input.colors.join(', ')}. ` +
        'Leave calm space for a headline; no text, letters or logos in the image.',
      size: coverSize(this.imageModel),
      n: 1,
      // GPT image models always answer base64 and reject the parameter; DALL·E answers URLs unless asked.
      ...(dallE ? { response_format: 'b64_json' as const } : {}),
    };
    const answer = await this.call(() => this.client.images.generate(params, { signal }));
    const b64 = answer.data?.[0]?.b64_json;
    if (typeof b64 !== 'string' || !b64) throw invalid('no base64 image');
    const compact = b64.replace(/\s+/g, '');
    if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw invalid('the image is not valid base64');
    return { bytes: Buffer.from(compact, 'base64') };
  }

  /** One structured-output chat completion, parsed and validated against `schema`. */
  private async complete<T>(
    name: SchemaName,
    schema: JsonSchema,
    validate: ValidateFunction<T>,
    system: string,
    user: string | ChatCompletionContentPart[],
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      response_format: { type: 'json_schema', json_schema: { name, strict: true, schema: wireSchema(schema) } },
    };
    const completion = await this.call(() => this.client.chat.completions.create(params, { signal }));
    const choice = completion.choices?.[0];
    if (!choice?.message) throw invalid('no choices');
    if (choice.message.refusal) throw new AiProviderError('The AI provider declined to answer this request', 'refused');
    if (choice.finish_reason === 'content_filter')
      throw new AiProviderError("The AI provider's content filter stopped the answer", 'refused');
    if (choice.finish_reason === 'length') throw invalid('the answer was cut off at the length limit');
    const content = choice.message.content;
    if (typeof content !== 'string' || !content.trim()) throw invalid('the answer is empty');
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      // Not attached as a cause: JSON.parse's message quotes the answer.
      throw invalid('the answer is not JSON');
    }
    if (!validate(parsed)) {
      const error = validate.errors?.[0];
      // ajv's messages name the keyword and the limit, never the offending value.
      throw invalid(`the answer does not match the ${name} schema (${error?.instancePath || '/'} ${error?.message ?? 'is invalid'})`);
    }
    return parsed;
  }

  /** Runs a client call, turning the client's errors into `AiProviderError`s. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): unknown {
    // Subclasses before their parents: the timeout and abort errors are connection errors, which are APIErrors.
    if (error instanceof APIConnectionTimeoutError) {
      return new AiProviderError(`The AI provider did not answer within ${this.timeoutMs} ms`, 'timeout', { cause: error });
    }
    if (error instanceof APIUserAbortError) {
      return new AiProviderError('The AI request was cancelled before the provider answered', 'timeout', { cause: error });
    }
    if (error instanceof APIConnectionError) {
      return new AiProviderError('The AI provider could not be reached', 'unavailable', { cause: error });
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      const status = error.status;
      if (status === 408) return new AiProviderError('The AI provider timed out (HTTP 408)', 'timeout', { cause: error });
      if (status === 429)
        return new AiProviderError('The AI provider is rate limiting this service (HTTP 429)', 'rate_limited', { cause: error });
      if (status >= 500) return new AiProviderError(`The AI provider failed (HTTP ${status})`, 'unavailable', { cause: error });
      return new AiProviderError(`The AI provider refused the request (HTTP ${status})`, 'refused', { cause: error });
    }
    return error;
  }
}

/** A landscape size each image model family accepts (DALL·E has its own fixed sizes). */
function coverSize(model: string): ImageGenerateParamsNonStreaming['size'] {
  if (model.startsWith('dall-e-2')) return '1024x1024';
  if (model.startsWith('dall-e')) return '1792x1024';
  return '1536x1024';
}
