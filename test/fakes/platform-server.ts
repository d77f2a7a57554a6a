import { createHash, randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './http-body.js';

/**
 * A fake of the six social platforms' APIs for tests: ONE real HTTP server on 127.0.0.1 with a
 * route tree per platform (`/x`, `/meta` for Facebook and Instagram, `/threads`, `/tiktok`,
 * `/youtube`, `/youtube-auth`). `env()` points every SOCIAL_* / platform variable at it.
 *
 * - Authorize endpoints behave like a user who consents: 302 to `redirect_uri?code=&state=`,
 *   remembering the code's client, redirect_uri and PKCE challenge.
 * - Token endpoints check the client's credentials, the redirect_uri and (with PKCE) that
 *   S256(verifier) is the remembered challenge; codes are single-use; refresh tokens rotate (X,
 *   TikTok). A failed check answers as the platform does (400 invalid_grant or its equivalent).
 * - API calls check the access token; `expireAccessTokens(platform)` makes the current ones answer
 *   as that platform answers an expired token, and refreshing issues working ones (unless
 *   `revokeRefreshTokens`, which makes the refresh fail too). Meta and Threads extend long-lived
 *   tokens instead of refreshing: here an expired (not revoked) token may still be extended.
 * - `enqueue(platform, operation, ...behaviours)` scripts the next answers of an operation (after
 *   the token check); every request is recorded in `requests`, every post in `posts`.
 * - Media processing (Instagram and Threads containers, TikTok's status, X video) reports
 *   FINISHED after `processingPolls` status requests (default 1: the first poll says IN_PROGRESS).
 */

export type FakePlatform = 'x' | 'instagram' | 'facebook' | 'threads' | 'tiktok' | 'youtube';

/** What a request does, for scripting (`enqueue`) and for reading `requests`. */
export type FakeOperation =
  /** The consent page. */
  | 'authorize'
  /** Code exchange, refresh, long-lived token exchange. */
  | 'token'
  /** Who the token belongs to: X users/me, Meta me/accounts, Threads me, TikTok user/info, YouTube channels. */
  | 'profile'
  /** X media upload (simple, initialize, append, finalize). */
  | 'media'
  /** TikTok creator_info. */
  | 'creator-info'
  /** Instagram / Threads media container creation. */
  | 'container'
  /** Processing status: Instagram / Threads container, TikTok publish status, X media status. */
  | 'status'
  /** YouTube resumable session (POST that answers Location). */
  | 'upload-session'
  /**
   * The call that creates the post: X tweets, Facebook feed/photos, Instagram media_publish, Threads threads_publish,
   * TikTok init, YouTube PUT.
   */
  | 'publish'
  /** Instagram / Threads permalink of a published post. */
  | 'permalink';

export type FakePlatformBehaviour =
  /** Any status; the body defaults to the platform's error shape for that status. */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Waits, then behaves as `then` (if the client is still there). */
  | { kind: 'delay'; ms: number; then: FakePlatformBehaviour }
  /** The fake's normal answer (after a delay, for instance). */
  | { kind: 'default' }
  /** Does the work at once (the post exists on the platform) but holds the answer back for `ms`. */
  | { kind: 'answer-late'; ms: number }
  /** Closes the connection without answering. */
  | { kind: 'drop' };

export interface FakePlatformRequest {
  /** The platform the request was for (Meta requests: by the token or code they carry). */
  platform: FakePlatform | null;
  operation: FakeOperation | null;
  method: string;
  /** The full path, prefix included: `/x/2/tweets`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON or form body; undefined for other bodies. */
  body: any;
  rawBody: string;
  /** The status answered (0 while pending or when dropped). */
  status: number;
  at: number;
}

export interface FakePost {
  platform: FakePlatform;
  id: string;
  /** The account (user, page, channel) it was published to. */
  accountId: string;
  text: string;
  media: { type: 'image' | 'video'; url: string }[];
  link: string | null;
  /** Platform-specific extras (privacy level, title…). */
  extra: Record<string, unknown>;
}

export interface FakePlatformOptions {
  /** Status requests answered IN_PROGRESS before FINISHED (default 1). */
  processingPolls?: number;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Grant {
  platform: FakePlatform;
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  used: boolean;
}

interface Token {
  platform: FakePlatform;
  kind: 'access' | 'refresh';
  expired: boolean;
  revoked: boolean;
}

interface Processing {
  platform: FakePlatform;
  accountId: string;
  polls: number;
  /** The post it became (X media: its id; containers: the data to publish). */
  data: Record<string, any>;
  published?: string;
}

interface Ctx {
  request: IncomingMessage;
  response: ServerResponse;
  record: FakePlatformRequest;
  /** Path after the platform prefix. */
  sub: string;
  /** Query and body parameters merged (Graph APIs take either). */
  params: Record<string, any>;
}

/** The fake accounts: one per platform. */
export const FAKE_ACCOUNTS = {
  x: { id: '2244994945', username: 'fake_x_user', name: 'Fake X User' },
  facebook: { id: '101000000000001', name: 'Fake Page' },
  instagram: { id: '17841400000000001', username: 'fake_ig_user' },
  threads: { id: '25600000000000001', username: 'fake_threads_user' },
  tiktok: { openId: 'tt-open-id-0001', username: 'fake_tiktok_user', displayName: 'Fake TikTok' },
  youtube: { id: 'UCfakeChannel000000000001', title: 'Fake Channel', customUrl: '@fakechannel' },
} as const;

export const FAKE_CLIENTS = {
  x: { id: 'fake-x-client', secret: 'fake-x-secret' },
  meta: { id: 'fake-meta-app', secret: 'fake-meta-secret' },
  threads: { id: 'fake-threads-app', secret: 'fake-threads-secret' },
  tiktok: { id: 'fake-tiktok-key', secret: 'fake-tiktok-secret' },
  youtube: { id: 'fake-youtube-client', secret: 'fake-youtube-secret' },
} as const;

const GRAPH_VERSION = 'v21.0';
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const random = (bytes = 12) => randomBytes(bytes).toString('base64url');
const digits = (length: number) =>
  Array.from(randomBytes(length), (byte, index) => (index === 0 ? 1 + (byte % 9) : byte % 10)).join('');

export class FakePlatformServer {
  readonly requests: FakePlatformRequest[] = [];
  readonly posts: FakePost[] = [];
  /** Status requests answered IN_PROGRESS before FINISHED. */
  processingPolls: number;
  private readonly queues = new Map<string, FakePlatformBehaviour[]>();
  private readonly grants = new Map<string, Grant>();
  private readonly tokens = new Map<string, Token>();
  private readonly processing = new Map<string, Processing>();
  private readonly uploads = new Map<string, { accountId: string; meta: any }>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`. */
    readonly url: string,
    options: FakePlatformOptions,
  ) {
    this.processingPolls = options.processingPolls ?? 1;
  }

  static async start(options: FakePlatformOptions = {}): Promise<FakePlatformServer> {
    const ready: { fake?: FakePlatformServer } = {};
    const server = createServer((request, response) => void ready.fake!.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    ready.fake = new FakePlatformServer(server, `http://127.0.0.1:${port}`, options);
    return ready.fake;
  }

  /** Every variable the social platforms read, pointing at this fake, with SOCIAL_MODE=live. */
  env(): Record<string, string> {
    const url = this.url;
    return {
      SOCIAL_MODE: 'live',
      X_CLIENT_ID: FAKE_CLIENTS.x.id,
      X_CLIENT_SECRET: FAKE_CLIENTS.x.secret,
      X_AUTHORIZE_URL: `${url}/x/i/oauth2/authorize`,
      X_API_URL: `${url}/x`,
      META_APP_ID: FAKE_CLIENTS.meta.id,
      META_APP_SECRET: FAKE_CLIENTS.meta.secret,
      META_DIALOG_URL: `${url}/meta/www`,
      META_GRAPH_URL: `${url}/meta/graph`,
      META_GRAPH_VERSION: GRAPH_VERSION,
      THREADS_APP_ID: FAKE_CLIENTS.threads.id,
      THREADS_APP_SECRET: FAKE_CLIENTS.threads.secret,
      THREADS_AUTHORIZE_URL: `${url}/threads/oauth/authorize`,
      THREADS_API_URL: `${url}/threads/graph`,
      TIKTOK_CLIENT_KEY: FAKE_CLIENTS.tiktok.id,
      TIKTOK_CLIENT_SECRET: FAKE_CLIENTS.tiktok.secret,
      TIKTOK_AUTHORIZE_URL: `${url}/tiktok/v2/auth/authorize/`,
      TIKTOK_API_URL: `${url}/tiktok/api`,
      YOUTUBE_CLIENT_ID: FAKE_CLIENTS.youtube.id,
      YOUTUBE_CLIENT_SECRET: FAKE_CLIENTS.youtube.secret,
      YOUTUBE_AUTHORIZE_URL: `${url}/youtube-auth/o/oauth2/v2/auth`,
      YOUTUBE_TOKEN_URL: `${url}/youtube-auth/token`,
      YOUTUBE_API_URL: `${url}/youtube`,
    };
  }

  /** Scripts the next answers of one operation of one platform, oldest first; then the normal answers. */
  enqueue(platform: FakePlatform, operation: FakeOperation, ...behaviours: FakePlatformBehaviour[]): this {
    const key = `${platform}:${operation}`;
    this.queues.set(key, [...(this.queues.get(key) ?? []), ...behaviours]);
    return this;
  }

  /** Scripted answers not used yet. */
  pending(platform: FakePlatform, operation: FakeOperation): number {
    return this.queues.get(`${platform}:${operation}`)?.length ?? 0;
  }

  /**
   * Every access token of `platform` issued so far answers as expired from now on (refresh then
   * issues working ones). `revokeRefreshTokens`: refreshing (or extending) fails too.
   */
  expireAccessTokens(platform: FakePlatform, options: { revokeRefreshTokens?: boolean } = {}): void {
    for (const token of this.tokens.values()) {
      if (token.platform !== platform) continue;
      if (token.kind === 'access') token.expired = true;
      if (options.revokeRefreshTokens) token.revoked = true;
    }
  }

  /** The recorded requests of one platform (and operation), oldest first. */
  requestsTo(platform: FakePlatform, operation?: FakeOperation): FakePlatformRequest[] {
    return this.requests.filter(
      (request) => request.platform === platform && (!operation || request.operation === operation),
    );
  }

  /** Follows an authorize URL as a consenting user's browser would: the code and state it sends back. */
  async consent(authorizeUrl: string): Promise<{ code: string; state: string; redirect: URL }> {
    const answer = await fetch(authorizeUrl, { redirect: 'manual' });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location)
      throw new Error(`the fake's consent answered ${answer.status}: ${await answer.text()}`);
    const redirect = new URL(location);
    return { code: redirect.searchParams.get('code') ?? '', state: redirect.searchParams.get('state') ?? '', redirect };
  }

  /** Forgets requests, posts and scripts; issued codes and tokens stay valid. */
  reset(): void {
    this.requests.length = 0;
    this.posts.length = 0;
    this.queues.clear();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  // ---------------------------------------------------------------------------------------------
  // Dispatch

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const body = parseBody(request.headers['content-type'], rawBody);
    const record: FakePlatformRequest = {
      platform: null,
      operation: null,
      method: request.method ?? 'GET',
      path: url.pathname,
      query,
      headers: request.headers,
      body,
      rawBody,
      status: 0,
      at: Date.now(),
    };
    this.requests.push(record);
    const [, prefix = '', ...rest] = url.pathname.split('/');
    const ctx: Ctx = {
      request,
      response,
      record,
      sub: `/${rest.join('/')}`,
      params: { ...query, ...(isObject(body) ? body : {}) },
    };
    switch (prefix) {
      case 'x':
        return this.x(ctx);
      case 'meta':
        return this.meta(ctx);
      case 'threads':
        return this.threads(ctx);
      case 'tiktok':
        return this.tiktok(ctx);
      case 'youtube':
      case 'youtube-auth':
        return this.youtube(ctx, prefix);
      default:
        return this.send(ctx, { status: 404, body: { error: `no fake platform at ${url.pathname}` } });
    }
  }

  /** Records the platform and operation, then answers from the script or `normal`. */
  private answer(ctx: Ctx, platform: FakePlatform, operation: FakeOperation, normal: () => Reply): void {
    ctx.record.platform = platform;
    ctx.record.operation = operation;
    const scripted = this.queues.get(`${platform}:${operation}`)?.shift();
    this.behave(ctx, platform, scripted ?? { kind: 'default' }, normal);
  }

  private behave(ctx: Ctx, platform: FakePlatform, behaviour: FakePlatformBehaviour, normal: () => Reply): void {
    switch (behaviour.kind) {
      case 'default':
        return this.send(ctx, normal());
      case 'drop':
        ctx.request.socket.destroy();
        return;
      case 'status':
        return this.send(ctx, {
          status: behaviour.status,
          body: behaviour.body ?? errorBody(platform, behaviour.status, `Scripted failure (HTTP ${behaviour.status})`),
          headers: behaviour.headers,
        });
      case 'answer-late': {
        const reply = normal();
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!ctx.response.destroyed && !ctx.response.writableEnded) this.send(ctx, reply);
        }, behaviour.ms);
        this.timers.add(timer);
        return;
      }
      case 'delay': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!ctx.response.destroyed && !ctx.response.writableEnded)
            this.behave(ctx, platform, behaviour.then, normal);
        }, behaviour.ms);
        this.timers.add(timer);
        return;
      }
    }
  }

  private send(ctx: Ctx, reply: Reply): void {
    ctx.record.status = reply.status;
    const headers: Record<string, string> = { ...reply.headers };
    if (reply.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    ctx.response.writeHead(reply.status, headers);
    ctx.response.end(
      reply.body === undefined ? undefined : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body),
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Shared OAuth pieces

  /** The consent: remembers the grant and sends the browser back with a code. */
  private grantConsent(ctx: Ctx, platform: FakePlatform, clientId: string | undefined, expectedClient: string): void {
    const {
      redirect_uri: redirectUri,
      state,
      code_challenge: challenge,
      code_challenge_method: method,
    } = ctx.record.query;
    this.answer(ctx, platform, 'authorize', (): Reply => {
      if (clientId !== expectedClient)
        return { status: 400, body: 'unknown client', headers: { 'content-type': 'text/plain' } };
      if (!redirectUri || !state)
        return { status: 400, body: 'redirect_uri and state are required', headers: { 'content-type': 'text/plain' } };
      if (challenge && method !== 'S256')
        return { status: 400, body: 'code_challenge_method must be S256', headers: { 'content-type': 'text/plain' } };
      const code = `${platform}-code-${random()}`;
      this.grants.set(code, { platform, clientId, redirectUri, challenge: challenge ?? null, used: false });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', state);
      return { status: 302, headers: { location: back.toString() } };
    });
  }

  /** Spends a code: null when valid for this client, redirect_uri and verifier; else why not. */
  private spendCode(
    code: unknown,
    clientId: string,
    redirectUri: unknown,
    verifier: unknown,
  ): { grant?: Grant; problem?: string } {
    const grant = typeof code === 'string' ? this.grants.get(code) : undefined;
    if (!grant) return { problem: 'The authorization code is invalid.' };
    if (grant.used) return { problem: 'The authorization code was already used.' };
    grant.used = true;
    if (grant.clientId !== clientId) return { problem: 'The code was issued to another client.' };
    if (grant.redirectUri !== redirectUri) return { problem: 'redirect_uri does not match the authorization request.' };
    if (grant.challenge !== null && (typeof verifier !== 'string' || s256(verifier) !== grant.challenge)) {
      return { problem: 'The code_verifier does not match the code_challenge.' };
    }
    return { grant };
  }

  private issue(platform: FakePlatform, kind: 'access' | 'refresh'): string {
    const token = `${platform}-${kind === 'access' ? 'at' : 'rt'}-${random(18)}`;
    this.tokens.set(token, { platform, kind, expired: false, revoked: false });
    return token;
  }

  /** `ok`, or why the token cannot be used for an API call. */
  private check(token: string | undefined, platform?: FakePlatform): 'ok' | 'expired' | 'invalid' {
    const found = token ? this.tokens.get(token) : undefined;
    if (!found || found.kind !== 'access' || found.revoked || (platform && found.platform !== platform))
      return 'invalid';
    return found.expired ? 'expired' : 'ok';
  }

  private bearer(ctx: Ctx): string | undefined {
    const header = ctx.request.headers.authorization;
    return header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  }

  private basic(ctx: Ctx): { id: string; secret: string } | null {
    const header = ctx.request.headers.authorization;
    if (!header?.startsWith('Basic ')) return null;
    const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
  }

  /** Advances a processing item; true once it has been polled `processingPolls` times before. */
  private poll(item: Processing): boolean {
    item.polls += 1;
    return item.polls > this.processingPolls;
  }

  private publishPost(post: Omit<FakePost, 'id'>, id = digits(19)): FakePost {
    const stored = { ...post, id };
    this.posts.push(stored);
    return stored;
  }

  // ---------------------------------------------------------------------------------------------
  // X: /x/i/oauth2/authorize, /x/2/...

  private x(ctx: Ctx): void {
    const { sub, record } = ctx;
    const platform = 'x';
    if (sub === '/i/oauth2/authorize')
      return this.grantConsent(ctx, platform, record.query.client_id, FAKE_CLIENTS.x.id);
    if (sub === '/2/oauth2/token' && record.method === 'POST') {
      return this.answer(ctx, platform, 'token', () => {
        const form = record.body ?? {};
        const basic = this.basic(ctx);
        if (basic && (basic.id !== FAKE_CLIENTS.x.id || basic.secret !== FAKE_CLIENTS.x.secret)) {
          return {
            status: 401,
            body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' },
          };
        }
        const clientId = basic?.id ?? form.client_id;
        if (clientId !== FAKE_CLIENTS.x.id)
          return { status: 401, body: { error: 'unauthorized_client', error_description: 'Unknown client' } };
        const invalid = (description: string) => ({
          status: 400,
          body: { error: 'invalid_request', error_description: description },
        });
        if (form.grant_type === 'authorization_code') {
          const spent = this.spendCode(form.code, clientId, form.redirect_uri, form.code_verifier);
          if (spent.problem) return invalid(`Value passed for the authorization code was invalid. ${spent.problem}`);
        } else if (form.grant_type === 'refresh_token') {
          const refresh = this.tokens.get(form.refresh_token);
          if (!refresh || refresh.kind !== 'refresh' || refresh.platform !== platform || refresh.revoked)
            return invalid('Value passed for the token was invalid.');
          refresh.revoked = true; // X rotates refresh tokens
        } else {
          return invalid('Unsupported grant_type');
        }
        return {
          status: 200,
          body: {
            token_type: 'bearer',
            expires_in: 7200,
            access_token: this.issue(platform, 'access'),
            scope: 'tweet.read tweet.write users.read media.write offline.access',
            refresh_token: this.issue(platform, 'refresh'),
          },
        };
      });
    }
    const token = this.check(this.bearer(ctx), platform);
    const operation: FakeOperation = sub.startsWith('/2/media/upload')
      ? record.query.command === 'STATUS'
        ? 'status'
        : 'media'
      : sub === '/2/tweets'
        ? 'publish'
        : 'profile';
    if (token !== 'ok') {
      ctx.record.platform = platform;
      ctx.record.operation = operation;
      return this.send(ctx, {
        status: 401,
        body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
      });
    }
    const account = FAKE_ACCOUNTS.x.id;
    if (sub === '/2/users/me') {
      return this.answer(ctx, platform, 'profile', () => ({
        status: 200,
        body: { data: { id: FAKE_ACCOUNTS.x.id, name: FAKE_ACCOUNTS.x.name, username: FAKE_ACCOUNTS.x.username } },
      }));
    }
    if (sub === '/2/media/upload' && record.method === 'POST') {
      return this.answer(ctx, platform, 'media', () => {
        if (!record.body?.media || !record.body?.media_category)
          return { status: 400, body: xProblem('media and media_category are required') };
        const id = digits(19);
        this.processing.set(id, {
          platform,
          accountId: account,
          polls: this.processingPolls,
          data: { category: record.body.media_category },
        });
        return {
          status: 200,
          body: {
            data: {
              id,
              media_key: `3_${id}`,
              size: Buffer.from(record.body.media, 'base64').length,
              expires_after_secs: 86400,
            },
          },
        };
      });
    }
    if (sub === '/2/media/upload' && record.method === 'GET') {
      return this.answer(ctx, platform, 'status', () => {
        const item = this.processing.get(record.query.media_id ?? '');
        if (!item) return { status: 400, body: xProblem('Unknown media_id') };
        const done = this.poll(item);
        return {
          status: 200,
          body: {
            data: {
              id: record.query.media_id,
              processing_info: { state: done ? 'succeeded' : 'in_progress', check_after_secs: 1 },
            },
          },
        };
      });
    }
    if (sub === '/2/media/upload/initialize') {
      return this.answer(ctx, platform, 'media', () => {
        const id = digits(19);
        this.processing.set(id, {
          platform,
          accountId: account,
          polls: 0,
          data: { category: record.body?.media_category, total: record.body?.total_bytes, received: 0 },
        });
        return { status: 200, body: { data: { id, media_key: `7_${id}`, expires_after_secs: 86400 } } };
      });
    }
    const chunk = /^\/2\/media\/upload\/([^/]+)\/(append|finalize)$/.exec(sub);
    if (chunk) {
      return this.answer(ctx, platform, 'media', () => {
        const item = this.processing.get(decodeURIComponent(chunk[1]));
        if (!item) return { status: 400, body: xProblem('Unknown media id') };
        if (chunk[2] === 'append') {
          item.data.received += Buffer.from(String(record.body?.media ?? ''), 'base64').length;
          return { status: 200, body: { data: { expires_at: 0 } } };
        }
        if (item.data.received !== item.data.total)
          return { status: 400, body: xProblem('File size does not match total_bytes') };
        return {
          status: 200,
          body: { data: { id: chunk[1], processing_info: { state: 'pending', check_after_secs: 1 } } },
        };
      });
    }
    if (sub === '/2/tweets' && record.method === 'POST') {
      return this.answer(ctx, platform, 'publish', () => {
        const body = record.body ?? {};
        const mediaIds: string[] = body.media?.media_ids ?? [];
        if (!body.text && !mediaIds.length) return { status: 400, body: xProblem('Tweet needs text or media') };
        for (const id of mediaIds) {
          const item = this.processing.get(id);
          if (!item) return { status: 400, body: xProblem(`Your media IDs are invalid: ${id}`) };
          if (item.data.category === 'tweet_video' && item.polls <= this.processingPolls)
            return { status: 400, body: xProblem('Your media is still processing') };
        }
        const post = this.publishPost({
          platform,
          accountId: account,
          text: body.text ?? '',
          media: mediaIds.map((id) => ({
            type: this.processing.get(id)!.data.category === 'tweet_video' ? 'video' : 'image',
            url: `x-media:${id}`,
          })),
          link: null,
          extra: { media_ids: mediaIds },
        });
        return { status: 201, body: { data: { id: post.id, text: post.text, edit_history_tweet_ids: [post.id] } } };
      });
    }
    return this.send(ctx, { status: 404, body: xProblem(`no fake X route ${record.method} ${sub}`) });
  }

  // ---------------------------------------------------------------------------------------------
  // Meta (Facebook and Instagram): /meta/www/<v>/dialog/oauth, /meta/graph/<v>/...

  private meta(ctx: Ctx): void {
    const { sub, record, params } = ctx;
    const version = `/${GRAPH_VERSION}`;
    if (sub === `/www${version}/dialog/oauth`) {
      const scopes = String(record.query.scope ?? '').split(',');
      const platform = scopes.includes('instagram_content_publish') ? 'instagram' : 'facebook';
      return this.grantConsent(ctx, platform, record.query.client_id, FAKE_CLIENTS.meta.id);
    }
    if (!sub.startsWith(`/graph${version}/`))
      return this.send(ctx, { status: 404, body: graphError(`Unknown path ${sub}`, 100) });
    const path = sub.slice(`/graph${version}`.length);

    if (path === '/oauth/access_token') {
      const exchanged =
        params.grant_type === 'fb_exchange_token' ? this.tokens.get(params.fb_exchange_token) : undefined;
      const grant = typeof params.code === 'string' ? this.grants.get(params.code) : undefined;
      const platform = exchanged?.platform ?? grant?.platform ?? 'facebook';
      return this.answer(ctx, platform, 'token', () => {
        if (params.client_id !== FAKE_CLIENTS.meta.id || params.client_secret !== FAKE_CLIENTS.meta.secret) {
          return { status: 400, body: graphError('Error validating client secret.', 1, 'OAuthException') };
        }
        if (params.grant_type === 'fb_exchange_token') {
          if (!exchanged || exchanged.revoked)
            return {
              status: 400,
              body: graphError(
                'Error validating access token: The session has been invalidated.',
                190,
                'OAuthException',
                460,
              ),
            };
          return {
            status: 200,
            body: { access_token: this.issue(platform, 'access'), token_type: 'bearer', expires_in: 5183944 },
          };
        }
        const spent = this.spendCode(params.code, params.client_id, params.redirect_uri, undefined);
        if (spent.problem)
          return {
            status: 400,
            body: graphError(`Invalid verification code format. ${spent.problem}`, 100, 'OAuthException', 36007),
          };
        return {
          status: 200,
          body: { access_token: this.issue(platform, 'access'), token_type: 'bearer', expires_in: 3600 },
        };
      });
    }

    const token = typeof params.access_token === 'string' ? params.access_token : this.bearer(ctx);
    const owner = token ? this.tokens.get(token) : undefined;
    const platform: FakePlatform = owner?.platform === 'instagram' ? 'instagram' : 'facebook';
    const operation = metaOperation(record.method, path, params);
    const state = this.check(token);
    if (state !== 'ok') {
      ctx.record.platform = platform;
      ctx.record.operation = operation;
      return this.send(ctx, {
        status: 400,
        body:
          state === 'expired'
            ? graphError('Error validating access token: Session has expired.', 190, 'OAuthException', 463)
            : graphError('Invalid OAuth access token - Cannot parse access token', 190, 'OAuthException'),
      });
    }
    const { facebook: page, instagram } = FAKE_ACCOUNTS;

    if (path === '/me/accounts') {
      return this.answer(ctx, platform, 'profile', () => ({
        status: 200,
        body: {
          data: [
            {
              id: page.id,
              name: page.name,
              access_token: this.issue('facebook', 'access'),
              instagram_business_account: String(params.fields ?? '').includes('instagram_business_account')
                ? { id: instagram.id, username: instagram.username }
                : undefined,
            },
          ],
          paging: { cursors: { before: 'b', after: 'a' } },
        },
      }));
    }
    if (path === `/${page.id}/feed` || path === `/${page.id}/photos`) {
      return this.answer(ctx, 'facebook', 'publish', () => {
        if (platform !== 'facebook')
          return { status: 403, body: graphError('(#200) The page access token is required', 200) };
        const photo = path.endsWith('/photos');
        if (photo && !params.url) return { status: 400, body: graphError('(#324) Requires upload file', 324) };
        if (!photo && !params.message && !params.link)
          return { status: 400, body: graphError('(#100) Missing message or attachment', 100) };
        const post = this.publishPost(
          {
            platform: 'facebook',
            accountId: page.id,
            text: String((photo ? params.caption : params.message) ?? ''),
            media: photo ? [{ type: 'image', url: String(params.url) }] : [],
            link: params.link ?? null,
            extra: {},
          },
          `${page.id}_${digits(16)}`,
        );
        return { status: 200, body: photo ? { id: digits(16), post_id: post.id } : { id: post.id } };
      });
    }
    if (path === `/${instagram.id}/media` && record.method === 'POST') {
      return this.answer(ctx, 'instagram', 'container', () => {
        const video = params.media_type === 'REELS' || params.media_type === 'VIDEO';
        const url = video ? params.video_url : params.image_url;
        if (!url) return { status: 400, body: graphError('(#100) The parameter image_url is required', 100) };
        const id = digits(17);
        this.processing.set(id, {
          platform: 'instagram',
          accountId: instagram.id,
          polls: 0,
          data: {
            text: params.caption ?? '',
            media: [{ type: video ? 'video' : 'image', url }],
            mediaType: params.media_type ?? 'IMAGE',
            needsPolls: true,
          },
        });
        return { status: 200, body: { id } };
      });
    }
    if (path === `/${instagram.id}/media_publish` && record.method === 'POST') {
      return this.answer(ctx, 'instagram', 'publish', () =>
        this.publishContainer('instagram', params.creation_id, 'status_code'),
      );
    }
    const node = /^\/(\d+)$/.exec(path);
    if (node && record.method === 'GET') {
      const container = this.processing.get(node[1]);
      if (container) {
        return this.answer(ctx, container.platform, 'status', () => ({
          status: 200,
          body: {
            id: node[1],
            status_code: container.published ? 'PUBLISHED' : this.poll(container) ? 'FINISHED' : 'IN_PROGRESS',
          },
        }));
      }
      const post = this.posts.find((candidate) => candidate.id === node[1]);
      if (post) {
        return this.answer(ctx, post.platform, 'permalink', () => ({
          status: 200,
          body: { id: post.id, permalink: `https://www.instagram.com/p/FAKE${post.id.slice(-8)}/` },
        }));
      }
    }
    return this.send(ctx, {
      status: 400,
      body: graphError(`(#100) Unsupported ${record.method} request on ${path}`, 100, 'GraphMethodException'),
    });
  }

  /** media_publish / threads_publish: a FINISHED container becomes a post. */
  private publishContainer(
    platform: 'instagram' | 'threads',
    creationId: unknown,
    field: 'status_code' | 'status',
  ): Reply {
    const container = typeof creationId === 'string' ? this.processing.get(creationId) : undefined;
    if (!container || container.platform !== platform)
      return { status: 400, body: graphError('(#100) Invalid creation_id', 100) };
    if (container.published)
      return { status: 400, body: graphError('(#9004) The media has already been published', 9004) };
    if (container.data.needsPolls && container.polls <= this.processingPolls) {
      return {
        status: 400,
        body: graphError(
          `(#9007) Media is not ready for publishing (${field} IN_PROGRESS)`,
          9007,
          'OAuthException',
          2207027,
        ),
      };
    }
    const post = this.publishPost({
      platform,
      accountId: container.accountId,
      text: String(container.data.text ?? ''),
      media: container.data.media,
      link: null,
      extra: { mediaType: container.data.mediaType },
    });
    container.published = post.id;
    return { status: 200, body: { id: post.id } };
  }

  // ---------------------------------------------------------------------------------------------
  // Threads: /threads/oauth/authorize, /threads/graph/...

  private threads(ctx: Ctx): void {
    const { sub, record, params } = ctx;
    const platform = 'threads';
    if (sub === '/oauth/authorize')
      return this.grantConsent(ctx, platform, record.query.client_id, FAKE_CLIENTS.threads.id);
    if (!sub.startsWith('/graph/'))
      return this.send(ctx, { status: 404, body: graphError(`Unknown path ${sub}`, 100) });
    const path = sub.slice('/graph'.length);
    const { id: userId, username } = FAKE_ACCOUNTS.threads;
    const longLived = () => ({
      status: 200,
      body: { access_token: this.issue(platform, 'access'), token_type: 'bearer', expires_in: 5183944 },
    });

    if (path === '/oauth/access_token' && record.method === 'POST') {
      return this.answer(ctx, platform, 'token', () => {
        if (params.client_id !== FAKE_CLIENTS.threads.id || params.client_secret !== FAKE_CLIENTS.threads.secret) {
          return { status: 400, body: graphError('Error validating client secret.', 1, 'OAuthException') };
        }
        if (params.grant_type !== 'authorization_code')
          return { status: 400, body: graphError('Unsupported grant_type', 100) };
        const spent = this.spendCode(params.code, params.client_id, params.redirect_uri, undefined);
        if (spent.problem)
          return {
            status: 400,
            body: graphError(`Invalid verification code format. ${spent.problem}`, 100, 'OAuthException', 36007),
          };
        return { status: 200, body: { access_token: this.issue(platform, 'access'), user_id: userId } };
      });
    }
    if (path === '/access_token' || path === '/refresh_access_token') {
      return this.answer(ctx, platform, 'token', () => {
        const token = this.tokens.get(params.access_token);
        const grant = path === '/access_token' ? 'th_exchange_token' : 'th_refresh_token';
        if (params.grant_type !== grant) return { status: 400, body: graphError(`grant_type must be ${grant}`, 100) };
        if (grant === 'th_exchange_token' && params.client_secret !== FAKE_CLIENTS.threads.secret) {
          return { status: 400, body: graphError('Error validating client secret.', 1, 'OAuthException') };
        }
        if (!token || token.platform !== platform || token.revoked) {
          return {
            status: 400,
            body: graphError(
              'Error validating access token: The session has been invalidated.',
              190,
              'OAuthException',
              460,
            ),
          };
        }
        return longLived();
      });
    }

    const state = this.check(params.access_token, platform);
    const operation = threadsOperation(record.method, path, params);
    if (state !== 'ok') {
      ctx.record.platform = platform;
      ctx.record.operation = operation;
      return this.send(ctx, {
        status: 401,
        body: graphError(
          state === 'expired' ? 'Error validating access token: Session has expired.' : 'Invalid OAuth access token.',
          190,
          'OAuthException',
          state === 'expired' ? 463 : undefined,
        ),
      });
    }
    if (path === '/v1.0/me')
      return this.answer(ctx, platform, 'profile', () => ({ status: 200, body: { id: userId, username } }));
    if (path === `/v1.0/${userId}/threads` && record.method === 'POST') {
      return this.answer(ctx, platform, 'container', () => {
        const type = params.media_type;
        const url = type === 'IMAGE' ? params.image_url : type === 'VIDEO' ? params.video_url : undefined;
        if (!['TEXT', 'IMAGE', 'VIDEO'].includes(type))
          return { status: 400, body: graphError('(#100) media_type must be TEXT, IMAGE or VIDEO', 100) };
        if (type !== 'TEXT' && !url)
          return {
            status: 400,
            body: graphError(`(#100) ${type === 'IMAGE' ? 'image_url' : 'video_url'} is required`, 100),
          };
        if (type === 'TEXT' && !params.text)
          return { status: 400, body: graphError('(#100) text is required for a TEXT post', 100) };
        const id = digits(17);
        this.processing.set(id, {
          platform,
          accountId: userId,
          polls: 0,
          data: {
            text: params.text ?? '',
            media: url ? [{ type: type === 'IMAGE' ? 'image' : 'video', url }] : [],
            mediaType: type,
            needsPolls: type !== 'TEXT',
          },
        });
        return { status: 200, body: { id } };
      });
    }
    if (path === `/v1.0/${userId}/threads_publish` && record.method === 'POST') {
      return this.answer(ctx, platform, 'publish', () => this.publishContainer(platform, params.creation_id, 'status'));
    }
    const node = /^\/v1\.0\/(\d+)$/.exec(path);
    if (node && record.method === 'GET') {
      const container = this.processing.get(node[1]);
      if (container) {
        return this.answer(ctx, platform, 'status', () => ({
          status: 200,
          body: {
            id: node[1],
            status: container.published ? 'PUBLISHED' : this.poll(container) ? 'FINISHED' : 'IN_PROGRESS',
          },
        }));
      }
      const post = this.posts.find((candidate) => candidate.id === node[1] && candidate.platform === platform);
      if (post) {
        return this.answer(ctx, platform, 'permalink', () => ({
          status: 200,
          body: { id: post.id, permalink: `https://www.threads.net/@${username}/post/FAKE${post.id.slice(-8)}` },
        }));
      }
    }
    return this.send(ctx, {
      status: 400,
      body: graphError(`(#100) Unsupported ${record.method} request on ${path}`, 100, 'GraphMethodException'),
    });
  }

  // ---------------------------------------------------------------------------------------------
  // TikTok: /tiktok/v2/auth/authorize/, /tiktok/api/v2/...

  private tiktok(ctx: Ctx): void {
    const { sub, record } = ctx;
    const platform = 'tiktok';
    if (sub === '/v2/auth/authorize/' || sub === '/v2/auth/authorize')
      return this.grantConsent(ctx, platform, record.query.client_key, FAKE_CLIENTS.tiktok.id);
    const path = sub.replace(/^\/api/, '');
    const tiktokError = (status: number, code: string, message: string) => ({
      status,
      body: { data: {}, error: { code, message, log_id: `fake${digits(10)}` } },
    });
    const ok = (data: unknown) => ({
      status: 200,
      body: { data, error: { code: 'ok', message: '', log_id: `fake${digits(10)}` } },
    });

    if (path === '/v2/oauth/token/' && record.method === 'POST') {
      return this.answer(ctx, platform, 'token', () => {
        const form = record.body ?? {};
        const invalid = (error: string, description: string) => ({
          status: 400,
          body: { error, error_description: description, log_id: 'fake' },
        });
        if (form.client_key !== FAKE_CLIENTS.tiktok.id || form.client_secret !== FAKE_CLIENTS.tiktok.secret)
          return invalid('invalid_client', 'Client key or secret is incorrect.');
        let refreshToken: string;
        if (form.grant_type === 'authorization_code') {
          const spent = this.spendCode(form.code, form.client_key, form.redirect_uri, form.code_verifier);
          if (spent.problem)
            return invalid('invalid_grant', `Authorization code is expired or invalid. ${spent.problem}`);
          refreshToken = this.issue(platform, 'refresh');
        } else if (form.grant_type === 'refresh_token') {
          const refresh = this.tokens.get(form.refresh_token);
          if (!refresh || refresh.kind !== 'refresh' || refresh.platform !== platform || refresh.revoked)
            return invalid('invalid_grant', 'Refresh token is invalid or expired.');
          refresh.revoked = true;
          refreshToken = this.issue(platform, 'refresh');
        } else {
          return invalid('invalid_request', 'Unsupported grant_type.');
        }
        return {
          status: 200,
          body: {
            open_id: FAKE_ACCOUNTS.tiktok.openId,
            scope: 'user.info.basic,video.publish',
            access_token: this.issue(platform, 'access'),
            expires_in: 86400,
            refresh_token: refreshToken,
            refresh_expires_in: 31536000,
            token_type: 'Bearer',
          },
        };
      });
    }

    const operation: FakeOperation =
      path === '/v2/user/info/'
        ? 'profile'
        : path === '/v2/post/publish/creator_info/query/'
          ? 'creator-info'
          : path === '/v2/post/publish/status/fetch/'
            ? 'status'
            : 'publish';
    const state = this.check(this.bearer(ctx), platform);
    if (state !== 'ok') {
      ctx.record.platform = platform;
      ctx.record.operation = operation;
      return this.send(
        ctx,
        tiktokError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.'),
      );
    }
    const account = FAKE_ACCOUNTS.tiktok;
    if (path === '/v2/user/info/') {
      return this.answer(ctx, platform, 'profile', () => {
        const fields = String(record.query.fields ?? '').split(',');
        if (fields.includes('username'))
          return tiktokError(
            401,
            'scope_not_authorized',
            'The user did not authorize the scope required for completing this request.',
          );
        return ok({ user: { open_id: account.openId, display_name: account.displayName } });
      });
    }
    if (path === '/v2/post/publish/creator_info/query/' && record.method === 'POST') {
      return this.answer(ctx, platform, 'creator-info', () =>
        ok({
          creator_avatar_url: 'https://p16.tiktokcdn.example/avatar.jpeg',
          creator_username: account.username,
          creator_nickname: account.displayName,
          privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
          comment_disabled: false,
          duet_disabled: false,
          stitch_disabled: true,
          max_video_post_duration_sec: 600,
        }),
      );
    }
    if (
      (path === '/v2/post/publish/video/init/' || path === '/v2/post/publish/content/init/') &&
      record.method === 'POST'
    ) {
      return this.answer(ctx, platform, 'publish', () => {
        const body = record.body ?? {};
        const source = body.source_info ?? {};
        const video = path.includes('/video/');
        const urls: string[] = video ? (source.video_url ? [source.video_url] : []) : (source.photo_images ?? []);
        if (source.source !== 'PULL_FROM_URL' || urls.length === 0)
          return tiktokError(400, 'invalid_params', 'source_info is invalid.');
        if (!body.post_info?.privacy_level) return tiktokError(400, 'invalid_params', 'privacy_level is required.');
        const publishId = `v_pub_url~v2-1.${digits(18)}`;
        this.processing.set(publishId, {
          platform,
          accountId: account.openId,
          polls: 0,
          data: {
            text: video ? (body.post_info.title ?? '') : (body.post_info.description ?? ''),
            media: urls.map((url) => ({ type: video ? 'video' : 'image', url })),
            privacy: body.post_info.privacy_level,
            title: body.post_info.title,
          },
        });
        return ok({ publish_id: publishId });
      });
    }
    if (path === '/v2/post/publish/status/fetch/' && record.method === 'POST') {
      return this.answer(ctx, platform, 'status', () => {
        const item = this.processing.get(record.body?.publish_id ?? '');
        if (!item) return tiktokError(400, 'invalid_publish_id', 'publish_id does not exist.');
        if (!item.published && this.poll(item)) {
          const post = this.publishPost({
            platform,
            accountId: item.accountId,
            text: item.data.text,
            media: item.data.media,
            link: null,
            extra: { privacy_level: item.data.privacy, title: item.data.title, publish_id: record.body.publish_id },
          });
          item.published = post.id;
        }
        return item.published
          ? ok({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [item.published], uploaded_bytes: 0 })
          : ok({ status: 'PROCESSING_DOWNLOAD', uploaded_bytes: 0 });
      });
    }
    return this.send(ctx, tiktokError(404, 'invalid_params', `no fake TikTok route ${record.method} ${path}`));
  }

  // ---------------------------------------------------------------------------------------------
  // YouTube: /youtube-auth/o/oauth2/v2/auth, /youtube-auth/token, /youtube/...

  private youtube(ctx: Ctx, prefix: 'youtube' | 'youtube-auth'): void {
    const { sub, record } = ctx;
    const platform = 'youtube';
    if (prefix === 'youtube-auth' && sub === '/o/oauth2/v2/auth')
      return this.grantConsent(ctx, platform, record.query.client_id, FAKE_CLIENTS.youtube.id);
    if (prefix === 'youtube-auth' && sub === '/token' && record.method === 'POST') {
      return this.answer(ctx, platform, 'token', () => {
        const form = record.body ?? {};
        const invalid = (error: string, description: string, status = 400) => ({
          status,
          body: { error, error_description: description },
        });
        if (form.client_id !== FAKE_CLIENTS.youtube.id || form.client_secret !== FAKE_CLIENTS.youtube.secret)
          return invalid('invalid_client', 'Unauthorized', 401);
        const scope = 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly';
        if (form.grant_type === 'authorization_code') {
          const spent = this.spendCode(form.code, form.client_id, form.redirect_uri, form.code_verifier);
          if (spent.problem) return invalid('invalid_grant', `Bad Request. ${spent.problem}`);
          return {
            status: 200,
            body: {
              access_token: this.issue(platform, 'access'),
              expires_in: 3599,
              refresh_token: this.issue(platform, 'refresh'),
              scope,
              token_type: 'Bearer',
            },
          };
        }
        if (form.grant_type === 'refresh_token') {
          const refresh = this.tokens.get(form.refresh_token);
          if (!refresh || refresh.kind !== 'refresh' || refresh.platform !== platform || refresh.revoked)
            return invalid('invalid_grant', 'Token has been expired or revoked.');
          // Google keeps the refresh token: the answer has none.
          return {
            status: 200,
            body: { access_token: this.issue(platform, 'access'), expires_in: 3599, scope, token_type: 'Bearer' },
          };
        }
        return invalid('unsupported_grant_type', 'Invalid grant_type');
      });
    }
    if (prefix !== 'youtube') return this.send(ctx, { status: 404, body: googleError(404, 'Not Found', 'notFound') });

    const uploading = sub === '/upload/youtube/v3/videos';
    const operation: FakeOperation = uploading ? (record.method === 'PUT' ? 'publish' : 'upload-session') : 'profile';
    const state = this.check(this.bearer(ctx), platform);
    if (state !== 'ok') {
      ctx.record.platform = platform;
      ctx.record.operation = operation;
      return this.send(ctx, {
        status: 401,
        body: googleError(
          401,
          'Request had invalid authentication credentials. Expected OAuth 2 access token.',
          'authError',
          'UNAUTHENTICATED',
        ),
      });
    }
    const channel = FAKE_ACCOUNTS.youtube;
    if (sub === '/youtube/v3/channels' && record.method === 'GET') {
      return this.answer(ctx, platform, 'profile', () => {
        if (record.query.mine !== 'true' || !String(record.query.part ?? '').includes('snippet'))
          return { status: 400, body: googleError(400, 'part and mine are required', 'required') };
        return {
          status: 200,
          body: {
            kind: 'youtube#channelListResponse',
            items: [
              {
                kind: 'youtube#channel',
                id: channel.id,
                snippet: { title: channel.title, customUrl: channel.customUrl },
              },
            ],
          },
        };
      });
    }
    if (uploading && record.method === 'POST') {
      return this.answer(ctx, platform, 'upload-session', () => {
        if (record.query.uploadType !== 'resumable')
          return { status: 400, body: googleError(400, 'uploadType must be resumable', 'invalid') };
        const snippet = record.body?.snippet;
        if (!snippet?.title)
          return {
            status: 400,
            body: googleError(400, 'The request metadata specifies an invalid or empty video title.', 'invalidTitle'),
          };
        const uploadId = random(16);
        this.uploads.set(uploadId, { accountId: channel.id, meta: record.body });
        return {
          status: 200,
          headers: {
            location: `${this.url}/youtube/upload/youtube/v3/videos?uploadType=resumable&upload_id=${uploadId}`,
          },
        };
      });
    }
    if (uploading && record.method === 'PUT') {
      return this.answer(ctx, platform, 'publish', () => {
        const upload = this.uploads.get(record.query.upload_id ?? '');
        if (!upload) return { status: 404, body: googleError(404, 'Upload session not found', 'notFound') };
        const expected = Number(ctx.request.headers['content-length'] ?? -1);
        if (!(expected > 0)) return { status: 400, body: googleError(400, 'The upload is empty', 'badContent') };
        this.uploads.delete(record.query.upload_id!);
        const id = random(8).slice(0, 11);
        this.publishPost(
          {
            platform,
            accountId: upload.accountId,
            text: String(upload.meta?.snippet?.description ?? ''),
            media: [{ type: 'video', url: `youtube-upload:${expected}-bytes` }],
            link: null,
            extra: {
              title: upload.meta?.snippet?.title,
              privacyStatus: upload.meta?.status?.privacyStatus,
              bytes: expected,
            },
          },
          id,
        );
        return {
          status: 200,
          body: {
            kind: 'youtube#video',
            id,
            snippet: upload.meta?.snippet,
            status: { uploadStatus: 'uploaded', ...upload.meta?.status },
          },
        };
      });
    }
    return this.send(ctx, {
      status: 404,
      body: googleError(404, `no fake YouTube route ${record.method} ${sub}`, 'notFound'),
    });
  }
}

function metaOperation(method: string, path: string, params: Record<string, any>): FakeOperation {
  if (path === '/me/accounts') return 'profile';
  if (/\/(feed|photos|media_publish)$/.test(path)) return 'publish';
  if (/\/media$/.test(path) && method === 'POST') return 'container';
  return String(params.fields ?? '').includes('permalink') ? 'permalink' : 'status';
}

function threadsOperation(method: string, path: string, params: Record<string, any>): FakeOperation {
  if (path === '/v1.0/me') return 'profile';
  if (path.endsWith('/threads_publish')) return 'publish';
  if (path.endsWith('/threads') && method === 'POST') return 'container';
  return String(params.fields ?? '').includes('permalink') ? 'permalink' : 'status';
}

/** The platform's error body for a scripted status. */
function errorBody(platform: FakePlatform, status: number, message: string): unknown {
  switch (platform) {
    case 'x':
      return { title: status === 429 ? 'Too Many Requests' : 'Error', detail: message, type: 'about:blank', status };
    case 'facebook':
    case 'instagram':
    case 'threads':
      return graphError(message, status === 429 ? 4 : status >= 500 ? 2 : 100, 'OAuthException');
    case 'tiktok':
      return {
        data: {},
        error: {
          code: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'internal_error' : 'invalid_params',
          message,
          log_id: 'fake',
        },
      };
    case 'youtube':
      return googleError(
        status,
        message,
        status === 429 ? 'rateLimitExceeded' : status >= 500 ? 'backendError' : 'invalid',
      );
  }
}

function graphError(message: string, code: number, type = 'OAuthException', subcode?: number) {
  return {
    error: { message, type, code, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: `fake${random(6)}` },
  };
}

function googleError(code: number, message: string, reason: string, status?: string) {
  return { error: { code, message, errors: [{ message, domain: 'global', reason }], ...(status ? { status } : {}) } };
}

function xProblem(detail: string) {
  return { title: 'Invalid Request', detail, type: 'https://api.twitter.com/2/problems/invalid-request', status: 400 };
}

function parseBody(contentType: string | undefined, raw: string): any {
  if (!raw) return undefined;
  if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
