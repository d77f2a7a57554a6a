import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import type { ImageGenerateParamsNonStreaming } from 'openai/resources/images';
import {
  AiProviderError,
  unusableAnswer as invalid,
  type AiProvider,
  type AiTask,
  type ChatTask,
  type GeneratedImage,
  type ImageTask,
} from '../providers/ai-provider.js';
import { wireSchema, type StructuredOutput } from './schemas.js';

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

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The AI functions on any OpenAI-compatible API, through the official client: each function's task says
 * what to ask (its `openai` part): a chat completion with JSON-schema structured output for the text
 * functions (the product photo as a vision input), or the images API for covers. Every answer is
 * validated against the task's schema before it is returned; failures become `AiProviderError`s whose
 * messages never carry the model's output or the key.
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

  languagesFor(): null {
    // A language model writes whatever language it is asked for.
    return null;
  }

  async run<Input, Output>(task: AiTask<Input, Output>, input: Input, signal?: AbortSignal): Promise<Output> {
    const how = task.openai as ChatTask<Input, Output> | ImageTask<Input>;
    if (how.kind === 'image') return (await this.image(how.prompt(input), signal)) as Output;
    const answer = await this.complete(how.output, how.system, how.user(input), signal);
    return how.accept ? how.accept(answer) : answer;
  }

  /** One image from the image model, as bytes. */
  private async image(prompt: string, signal: AbortSignal | undefined): Promise<GeneratedImage> {
    const dallE = this.imageModel.startsWith('dall-e');
    const params: ImageGenerateParamsNonStreaming = {
      model: this.imageModel,
      prompt,
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
    { name, schema, validate }: StructuredOutput<T>,
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
      throw invalid(
        `the answer does not match the ${name} schema ` +
          `(${error?.instancePath || '/'} ${error?.message ?? 'is invalid'})`,
      );
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
      return new AiProviderError(`The AI provider did not answer within ${this.timeoutMs} ms`, 'timeout', {
        cause: error,
      });
    }
    if (error instanceof APIUserAbortError) {
      return new AiProviderError('The AI request was cancelled before the provider answered', 'timeout', {
        cause: error,
      });
    }
    if (error instanceof APIConnectionError) {
      return new AiProviderError('The AI provider could not be reached', 'unavailable', { cause: error });
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      const status = error.status;
      if (status === 408)
        return new AiProviderError('The AI provider timed out (HTTP 408)', 'timeout', { cause: error });
      if (status === 429)
        return new AiProviderError('The AI provider is rate limiting this service (HTTP 429)', 'rate_limited', {
          cause: error,
        });
      if (status >= 500)
        return new AiProviderError(`The AI provider failed (HTTP ${status})`, 'unavailable', { cause: error });
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
