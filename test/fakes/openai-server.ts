import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { readBody } from './http-body.js';

/**
 * A small fake OpenAI-compatible API for tests: a real HTTP server on 127.0.0.1 that speaks enough of
 * `POST <basePath>/chat/completions` and `POST <basePath>/images/generations` for the `openai` provider.
 *
 * Each route answers from its queue of scripted behaviours (oldest first), then from a default: chat
 * answers a valid sample for the request's `response_format.json_schema.name`, images answer a
 * 1536×1024 PNG. So an e2e test of the whole app gets valid answers without scripting anything.
 * Every request is recorded with its parsed JSON body.
 */

export type FakeRoute = 'chat' | 'images';

/** One scripted answer. */
export type FakeBehaviour =
  /** A chat.completion whose message content is `JSON.stringify(content)`. */
  | { kind: 'json'; content: unknown; finishReason?: string }
  /** A chat.completion whose message content is this string as is (e.g. not JSON). */
  | { kind: 'raw-content'; content: string; finishReason?: string }
  /** A chat.completion with a refusal and no content. */
  | { kind: 'refusal'; message?: string }
  /** An images answer `{created, data: [{b64_json}]}`; the default PNG when `png` is absent. */
  | { kind: 'image'; png?: Buffer }
  /**
   * Any status with a JSON body (default: an OpenAI-style error). 429 and 5xx answers carry
   * `retry-after-ms` (the server's `retryAfterMs`) unless `headers` say otherwise, so client retries are quick.
   */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Waits, then behaves as `then` (if the client is still there). */
  | { kind: 'delay'; ms: number; then: FakeBehaviour };

export interface FakeOpenAiRequest {
  method: string;
  /** Path without the query string, base path included (`/v1/chat/completions`). */
  path: string;
  /** `chat`, `images`, or undefined for a path the fake does not serve. */
  route?: FakeRoute;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: any;
  rawBody: string;
  /** The status the fake answered (0 when the client left before the answer). */
  status: number;
  at: number;
}

export interface FakeOpenAiOptions {
  /** The API's base path, e.g. `/v1` (default). `url` includes it. */
  basePath?: string;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401 as OpenAI answers it. */
  apiKey?: string;
  /** `retry-after-ms` on 429/5xx status answers (default 10). */
  retryAfterMs?: number;
}

/**
 * The `response_format.json_schema.name` of each text function, as the fake recognises requests by
 * it. Written here, not imported from the functions' task files: the fault tests load this fake
 * without the app's module aliases. `openai-ai.provider.spec.ts` checks they are the tasks' names.
 */
export const SCHEMA_NAMES = {
  product: 'product_draft',
  article: 'article_draft',
  insights: 'social_insights',
  socialContent: 'social_content',
} as const;

export type SchemaName = (typeof SCHEMA_NAMES)[keyof typeof SCHEMA_NAMES];

/** Valid answers for each text function, by schema name: what the fake answers unless scripted. */
export const SAMPLE_ANSWERS: Record<SchemaName, Record<string, unknown>> = {
  [SCHEMA_NAMES.product]: {
    name: 'Red and blue canvas tote bag',
    name_en: 'Red and blue canvas tote bag',
    description: 'A sturdy canvas tote bag in bold red and blue, roomy enough for groceries, books and a laptop.',
    price: 24.9,
    compare_price: 29.9,
    category: 'Bags',
    seo_keywords: ['tote bag', 'canvas bag', 'red and blue bag'],
  },
  [SCHEMA_NAMES.article]: {
    title: 'How to care for linen',
    content:
      '<h2>Why linen lasts</h2><p>Linen gets softer with every wash.</p>' +
      '<h2>Washing</h2><ul><li>Wash at 40 °C.</li><li>Dry flat in the shade.</li></ul><p>That is all it takes.</p>',
    excerpt: 'Linen gets softer with every wash: a short guide to washing and drying it.',
    seo_title: 'How to care for linen: washing and drying',
    seo_description: 'A short guide to washing and drying linen so that it lasts for years.',
  },
  [SCHEMA_NAMES.insights]: {
    trending_topics: ['sustainable fashion', 'capsule wardrobes'],
    popular_hashtags: ['#slowfashion', '#ootd', '#sustainablestyle'],
    audience_sentiment: 'Mostly positive, with interest in durability and fair prices.',
    recommendations: ['Show the product in daily use.', 'Post short videos on weekday evenings.'],
  },
  [SCHEMA_NAMES.socialContent]: {
    text: 'Meet the bag that carries your whole day.',
    hashtags: ['#newin', '#shopsmall'],
    best_hour: 18,
  },
};

const ROUTES: Record<string, FakeRoute> = { '/chat/completions': 'chat', '/images/generations': 'images' };

export class FakeOpenAiServer {
  readonly requests: FakeOpenAiRequest[] = [];
  private readonly queues: Record<FakeRoute, FakeBehaviour[]> = { chat: [], images: [] };
  private readonly timers = new Set<NodeJS.Timeout>();
  private sequence = 0;

  private constructor(
    private readonly server: Server,
    /** Base URL to give the client (`AI_BASE_URL`), base path included: `http://127.0.0.1:<port>/v1`. */
    readonly url: string,
    private readonly basePath: string,
    private readonly options: FakeOpenAiOptions,
    /** The PNG the images route answers by default (1536×1024, solid colour). */
    readonly defaultPng: Buffer,
  ) {}

  static async start(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
    const basePath = (options.basePath ?? '/v1').replace(/\/+$/, '');
    const png = await sharp({ create: { width: 1536, height: 1024, channels: 3, background: '#2563eb' } })
      .png()
      .toBuffer();
    const ready: { fake?: FakeOpenAiServer } = {};
    const server = createServer((request, response) => void ready.fake!.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    ready.fake = new FakeOpenAiServer(server, `http://127.0.0.1:${port}${basePath}`, basePath, options, png);
    return ready.fake;
  }

  /** Scripts the next answers of a route, in order; the default answer follows once they are used up. */
  enqueue(route: FakeRoute, ...behaviours: FakeBehaviour[]): this {
    this.queues[route].push(...behaviours);
    return this;
  }

  /** The recorded requests of one route, oldest first. */
  requestsTo(route: FakeRoute): FakeOpenAiRequest[] {
    return this.requests.filter((request) => request.route === route);
  }

  get chatRequests(): FakeOpenAiRequest[] {
    return this.requestsTo('chat');
  }

  get imageRequests(): FakeOpenAiRequest[] {
    return this.requestsTo('images');
  }

  /** Scripted answers not used yet, per route. */
  pending(route: FakeRoute): number {
    return this.queues[route].length;
  }

  /** Forgets the recorded requests and the scripted answers not used yet. */
  reset(): void {
    this.requests.length = 0;
    this.queues.chat.length = 0;
    this.queues.images.length = 0;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const route = path.startsWith(`${this.basePath}/`) ? ROUTES[path.slice(this.basePath.length)] : undefined;
    const record: FakeOpenAiRequest = {
      method: request.method ?? 'GET',
      path,
      route,
      headers: request.headers,
      body: parseJson(rawBody),
      rawBody,
      status: 0,
      at: Date.now(),
    };
    this.requests.push(record);

    if (!route || record.method !== 'POST') {
      return this.send(
        response,
        record,
        404,
        openAiError(`Unknown request URL: ${record.method} ${path}`, 'invalid_request_error', null),
      );
    }
    if (this.options.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return this.send(
        response,
        record,
        401,
        openAiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'),
      );
    }
    if (record.body === undefined || typeof record.body !== 'object') {
      return this.send(
        response,
        record,
        400,
        openAiError('The body must be a JSON object.', 'invalid_request_error', null),
      );
    }
    this.behave(response, record, route, this.queues[route].shift() ?? this.defaultBehaviour(route, record));
  }

  private behave(
    response: ServerResponse,
    record: FakeOpenAiRequest,
    route: FakeRoute,
    behaviour: FakeBehaviour,
  ): void {
    switch (behaviour.kind) {
      case 'delay': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          // The client may have given up (its timeout); then there is nobody to answer.
          if (!response.destroyed && !response.writableEnded) this.behave(response, record, route, behaviour.then);
        }, behaviour.ms);
        this.timers.add(timer);
        return;
      }
      case 'status': {
        const retryable = behaviour.status === 429 || behaviour.status >= 500;
        const headers = {
          ...(retryable ? { 'retry-after-ms': String(this.options.retryAfterMs ?? 10) } : {}),
          ...behaviour.headers,
        };
        const body = behaviour.body ?? openAiError(`Scripted failure (HTTP ${behaviour.status})`, 'server_error', null);
        return this.send(response, record, behaviour.status, body, headers);
      }
      case 'image': {
        const png = behaviour.png ?? this.defaultPng;
        return this.send(response, record, 200, { created: now(), data: [{ b64_json: png.toString('base64') }] });
      }
      case 'json':
        return this.send(
          response,
          record,
          200,
          this.completion(record, JSON.stringify(behaviour.content), null, behaviour.finishReason),
        );
      case 'raw-content':
        return this.send(
          response,
          record,
          200,
          this.completion(record, behaviour.content, null, behaviour.finishReason),
        );
      case 'refusal':
        return this.send(
          response,
          record,
          200,
          this.completion(record, null, behaviour.message ?? "I'm sorry, I can't help with that."),
        );
    }
  }

  private defaultBehaviour(route: FakeRoute, record: FakeOpenAiRequest): FakeBehaviour {
    if (route === 'images') return { kind: 'image' };
    const name: unknown = record.body?.response_format?.json_schema?.name;
    const sample = typeof name === 'string' ? SAMPLE_ANSWERS[name as SchemaName] : undefined;
    if (sample) return { kind: 'json', content: sample };
    return {
      kind: 'status',
      status: 400,
      body: openAiError(
        `The fake has no default answer for response_format schema ${JSON.stringify(name)}`,
        'invalid_request_error',
        null,
      ),
    };
  }

  private completion(record: FakeOpenAiRequest, content: string | null, refusal: string | null, finishReason = 'stop') {
    this.sequence += 1;
    // Rough counts (4 characters a token): clients only read them.
    const promptTokens = Math.ceil(record.rawBody.length / 4);
    const completionTokens = Math.ceil((content ?? refusal ?? '').length / 4);
    return {
      id: `chatcmpl-fake${this.sequence}`,
      object: 'chat.completion',
      created: now(),
      model: typeof record.body?.model === 'string' ? record.body.model : 'fake-model',
      choices: [
        { index: 0, message: { role: 'assistant', content, refusal }, logprobs: null, finish_reason: finishReason },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    };
  }

  private send(
    response: ServerResponse,
    record: FakeOpenAiRequest,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    record.status = status;
    response.writeHead(status, {
      'content-type': 'application/json',
      'x-request-id': `req_fake${this.requests.indexOf(record)}`,
      ...headers,
    });
    response.end(JSON.stringify(body));
  }
}

function openAiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

const now = () => Math.floor(Date.now() / 1000);

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
