import { Injectable, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FUNCTIONS_PREFIX } from '../errors/error-body.js';
import { IdempotentWrites } from '../idempotency/idempotent-writes.js';
import { currentExchange } from '../observability/request-context.js';
import { TenantDb } from '../tenancy/db-handles.js';

const OWN_TRANSACTIONS = 'storefront:own-transactions';

/**
 * The route commits in steps of its own instead of one request transaction: an AI call commits
 * its charge before the provider is asked and refunds after, which one transaction cannot do.
 * Such a handler opens its own transactions (`TenantDb.transaction`), each bound to the user.
 */
export const OwnTransactions = () => SetMetadata(OWN_TRANSACTIONS, true);

/**
 * Whether a signed-in user's request runs its handler in one request transaction: a /functions/v1
 * route that does not commit in steps of its own. The JWT strategy opens that transaction together with
 * the caller's lookup; RouteTransactions hands it to the handler.
 */
export function runsInRequestTransaction(
  reflector: Reflector,
  context: ExecutionContext,
  request: FastifyRequest,
): boolean {
  return request.url.startsWith(FUNCTIONS_PREFIX) && !reflector.get<boolean>(OWN_TRANSACTIONS, context.getHandler());
}

/** Marks a handler RouteTransactions has wrapped, so that a second pass leaves it as it is. */
const WRAPPED = Symbol('storefront:route-transaction');

type Handler = (...args: unknown[]) => unknown;

/**
 * What must wrap every route's handler, done by wrapping the handlers themselves rather than by a Nest
 * interceptor (an interceptor makes Nest build a chain of rxjs Observables, an async resource and a
 * replay subject for every request; a wrapped handler is one more promise):
 *
 * - one transaction per /functions/v1 request of a signed-in user or store key, bound to the caller's
 *   session for row-level security (opened and bound by the JWT strategy, adopted by the scoped adapter:
 *   see tenancy/scoped-transaction-adapter.ts and request-transaction.ts). The handler's writes commit
 *   together when it returns and roll back together when it throws;
 * - a write's `Idempotency-Key` (IdempotentWrites), inside that transaction, so that its claim and kept
 *   answer commit or roll back with the route's change; a route that commits in steps (`@OwnTransactions`)
 *   or a caller without a session claims its key in a transaction of its own (IdempotencyStore).
 *
 * Nest has applied the guards and the pipes by the time a handler runs: a request they refuse never
 * reaches this, and its transaction, still unadopted, is rolled back by the error filter (`abandon`).
 * The handlers are wrapped on the controller instances once, after the app's modules are made and before
 * its routes are registered (`wrapRoutes`, called by createApp); Nest reads a route's guards, pipes and
 * other metadata from the function it registers, so each wrapper carries its handler's metadata.
 */
@Injectable()
export class RouteTransactions {
  constructor(
    private readonly db: TenantDb,
    private readonly idempotency: IdempotentWrites,
    private readonly discovery: DiscoveryService,
  ) {}

  /** Whether `wrapRoutes` has run: HeldValidation holds a refusal back only then. */
  private routesWrapped = false;

  get wrapped(): boolean {
    return this.routesWrapped;
  }

  /**
   * Wraps the route handlers of every controller of the app; returns how many it wrapped. Refuses a
   * request-scoped controller: Nest would call the handlers of a new instance per request, unwrapped,
   * outside the request transaction and past a held validation error.
   */
  wrapRoutes(): number {
    const scanner = new MetadataScanner();
    let wrapped = 0;
    for (const controller of this.discovery.getControllers()) {
      if (!controller.isDependencyTreeStatic()) {
        throw new Error(`${controller.name} is request-scoped: its route handlers could not be wrapped`);
      }
      const { instance } = controller;
      if (!instance || typeof instance !== 'object') continue;
      const target = instance as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(target))) {
        const handler = target[name] as Handler & { [WRAPPED]?: true };
        if (typeof handler !== 'function' || handler[WRAPPED] || !Reflect.hasMetadata(PATH_METADATA, handler)) continue;
        target[name] = this.wrap(handler);
        wrapped++;
      }
    }
    this.routesWrapped = true;
    return wrapped;
  }

  private wrap(handler: Handler): Handler {
    const ownTransactions = Reflect.getMetadata(OWN_TRANSACTIONS, handler) === true;
    const run = (handle: () => unknown) => this.run(ownTransactions, handle);
    // A function, not an arrow: Nest calls it with the controller as `this`.
    const wrapper = function (this: unknown, ...args: unknown[]): unknown {
      return run(() => handler.apply(this, args));
    };
    for (const key of Reflect.getMetadataKeys(handler)) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, handler), wrapper);
    }
    Object.defineProperty(wrapper, 'name', { value: handler.name });
    return Object.assign(wrapper, { [WRAPPED]: true as const });
  }

  /** The handler's answer, in the request transaction when the route has one, through the idempotency step. */
  private run(ownTransactions: boolean, handle: () => unknown): unknown {
    const exchange = currentExchange();
    if (!exchange) return handle();
    const { request, reply } = exchange;
    const kind = request.principal?.kind;
    const inTransaction =
      (kind === 'user' || kind === 'api_key') && !ownTransactions && request.url.startsWith(FUNCTIONS_PREFIX);
    if (!inTransaction) return this.answer(request, reply, handle);
    // In the transaction, so that a refused key rolls it back like any other error of the handler.
    return this.db.transaction(async () => this.answer(request, reply, handle));
  }

  private answer(request: FastifyRequest, reply: FastifyReply, handle: () => unknown): unknown {
    const write = this.idempotency.keyed(request);
    return write ? this.idempotency.run(write, request, reply, handle) : handle();
  }
}
