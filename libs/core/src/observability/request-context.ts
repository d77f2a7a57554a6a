import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClsServiceManager, type ClsStore } from 'nestjs-cls';
import type { Logger } from 'pino';

/** A request as its log lines name it (`req`), taken as it starts: the address is gone once its connection closes. */
export interface RequestFields {
  id: string;
  method: string | undefined;
  /** The path, without the query string (OAuth codes, tokens in links). */
  url: string | undefined;
  remoteAddress: string | undefined;
  userAgent: string | undefined;
}

/**
 * One request's line, written when Node closes its answer: `request completed` once the answer has
 * gone out, `request aborted` when the connection closed before that; 5xx answers and failed
 * responses log at `error` as `request errored`. The fields, levels and messages are pino-http's.
 */
class RequestLine {
  constructor(
    readonly req: RequestFields,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
  ) {}

  write(logger: Logger): void {
    const raw = this.reply.raw;
    const statusCode = raw.statusCode;
    const failure = raw.errored ?? undefined;
    // Fastify's clock starts as the request arrives and stops when the answer is written; whole ms.
    const responseTime = Math.round(this.reply.elapsedTime);
    // Who acted, named by the auth guard once the caller is known (absent for anonymous calls).
    const actor = this.request.raw.storefrontActor;
    // As pino-http's serializer wrote it: no status until the head of the answer has gone out.
    const res = { statusCode: raw.headersSent ? statusCode : null };
    if (failure !== undefined || statusCode >= 500) {
      const err = failure ?? new Error(`failed with status code ${statusCode}`);
      logger.error(
        actor ? { req: this.req, res, err, responseTime, actor } : { req: this.req, res, err, responseTime },
        'request errored',
      );
      return;
    }
    const message = !this.request.raw.readableAborted && raw.writableEnded ? 'request completed' : 'request aborted';
    logger.info(actor ? { req: this.req, res, responseTime, actor } : { req: this.req, res, responseTime }, message);
  }
}

const REQUEST_LINE = Symbol('storefront:request-line');

/** A request's nestjs-cls store: what the app sets in it (database scope, request transaction) and its log line. */
interface RequestStore extends ClsStore {
  [REQUEST_LINE]: RequestLine;
}

function requestFields(request: FastifyRequest): RequestFields {
  const { raw } = request;
  const url = raw.url;
  const query = url === undefined ? -1 : url.indexOf('?');
  return {
    id: request.id,
    method: raw.method,
    url: query === -1 ? url : url!.slice(0, query),
    remoteAddress: raw.socket?.remoteAddress,
    userAgent: raw.headers['user-agent'],
  };
}

/** The request the caller runs in, as log lines name it; undefined outside a request (a job, a sweep, the start). */
export function currentRequestFields(): RequestFields | undefined {
  const store = ClsServiceManager.getClsService().get() as Partial<RequestStore> | undefined;
  return store?.[REQUEST_LINE]?.req;
}

/**
 * The request the caller runs in and its reply, for code that Nest calls without them (a route's
 * handler, wrapped in its transaction: transactions/route-transactions.ts); undefined outside a request.
 */
export function currentExchange(): { request: FastifyRequest; reply: FastifyReply } | undefined {
  const store = ClsServiceManager.getClsService().get() as Partial<RequestStore> | undefined;
  return store?.[REQUEST_LINE];
}

/**
 * Every request's context and its log line, in Fastify hooks rather than in Nest middleware (which
 * Fastify runs through @fastify/middie, with an async chain, per request).
 *
 * - The context: the nestjs-cls store the database scope and the request transaction live in
 *   (current-scope.ts, request-transaction.ts; the transactional plugin's transactions run in copies
 *   of it). Entered in an `onRequest` hook registered where Nest middleware ran (after the hooks that
 *   refuse a request as it arrives), so it holds from there to the answer: guards, interceptors,
 *   pipes, the handler, the error filter and `onSend`. Not a ClsGuard or ClsInterceptor: the JWT guard
 *   already writes to the store, and the interceptor would start after every guard. A body arrives in
 *   socket events, outside any context, but Fastify resumes the request from its body parser in the
 *   context the parser started in (an AsyncResource), so a write's handler has the store too
 *   (logging.spec.ts sends a body after its headers). No plugin of nestjs-cls here has setup hooks
 *   and no proxy provider is declared: ClsMiddleware's run of those is not needed.
 * - The log line (RequestLine): one `close` listener on the answer, which Node emits once, after the
 *   answer has gone out or when the connection closed first. Not `onResponse` (never called for an
 *   aborted connection) nor `onRequestAbort` (not called once the body was read): pino-http also
 *   listened for `close`. Requests refused before this hook (non-canonical paths, non-JSON bodies, the
 *   drain's 503) get no line, as they got none from pino-http. CORS preflights get one: the CORS
 *   plugin's own hook is added when the app starts, after this one.
 */
export function registerRequestContext(fastify: FastifyInstance, logger: Logger): void {
  const cls = ClsServiceManager.getClsService<RequestStore>();
  // The request line holds the fields above and nothing else: none of them is a path the logger
  // redacts, so its lines skip the redaction's walk over every field (about half of a line's cost).
  const lines = logger.child({}, { redact: [] });
  // A callback hook, not an async one: it runs on every request.
  fastify.addHook('onRequest', (request, reply, done) => {
    const line = new RequestLine(requestFields(request), request, reply);
    reply.raw.on('close', () => line.write(lines));
    cls.runWith({ [REQUEST_LINE]: line }, done);
  });
}
