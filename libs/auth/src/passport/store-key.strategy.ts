import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { ApiKeyLookup, BoundedCache, type ApiKeyPrincipal, type StoreReference } from '@app/core';
import { RequestStrategy } from './api-key.strategy.js';
import { StoreKeyFailures } from './store-key-failures.js';
import { unauthenticated } from './credentials.js';
import type { RouteAuth } from './jwt.strategy.js';

/** `sk_` and 32 to 64 random bytes in base64url: anything else is refused without asking the database. */
const SECRET_FORMAT = /^sk_[A-Za-z0-9_-]{43,86}$/;
/** How often one process asks the database to record a key's use (the database keeps it to the minute). */
const TOUCH_EVERY_MS = 60_000;

/** The SHA-256 of a store key's secret, in hex: what the database keeps and looks the key up by. */
export function storeKeyHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * `store-key`: a merchant's server presenting a store key (`Authorization: Bearer sk_…`). The secret
 * is hashed and looked up in the database on every request (`ApiKeyLookup`): a revoked or expired
 * key is refused on the next request. The lookup returns the key's store and permissions and the
 * route's store relation in the same round trip, and on routes whose handler runs in one transaction
 * opens it, bound to the key. The key's use is recorded beside the request, once a minute at most.
 * Failed lookups are counted per client address (`StoreKeyFailures`): over the limit, 429 before any lookup.
 */
@Injectable()
export class StoreKeyStrategy extends PassportStrategy(RequestStrategy, 'store-key') {
  private readonly logger = new Logger(StoreKeyStrategy.name);
  private readonly touched = new BoundedCache<string, number>(10_000);

  constructor(
    private readonly keys: ApiKeyLookup,
    private readonly failures: StoreKeyFailures,
  ) {
    super();
  }

  async validate(request: FastifyRequest): Promise<ApiKeyPrincipal | null> {
    const credentials = request.credentials;
    if (credentials?.kind !== 'store_key') return null;
    const refused = () => unauthenticated(request, 'Invalid, revoked or expired store key', 'bad_jwt');
    if (!SECRET_FORMAT.test(credentials.secret)) throw refused();
    // An address over its failed lookups is refused before this one costs a database round trip.
    await this.failures.refuseIfOver(request.ip);
    const hash = storeKeyHash(credentials.secret);
    const route = request.routeAuth!;
    const key = await this.lookUp(request, hash, route);
    if (!key) {
      await this.failures.record(request.ip);
      throw refused();
    }
    if (route.storeReference) request.callerFacts = key.facts;
    this.touch(key.keyId, hash);
    const permissions = Object.freeze([...key.permissions]);
    return Object.freeze({ kind: 'api_key', keyId: key.keyId, storeId: key.storeId, permissions });
  }

  private async lookUp(request: FastifyRequest, hash: string, route: RouteAuth) {
    const reference: StoreReference | null = route.storeReference;
    if (!route.inTransaction) return this.keys.lookUp(hash, reference);
    const opened = await this.keys.open(hash, reference);
    if (!opened) return null;
    request.requestTransaction = opened.transaction;
    opened.transaction.enter();
    return opened.key;
  }

  /** Not awaited: the request does not wait for it, and a failure only leaves last_used_at older. */
  private touch(keyId: string, hash: string): void {
    const now = Date.now();
    const last = this.touched.get(keyId);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    this.keys.touch(hash).catch((error: Error) => {
      this.touched.set(keyId, 0);
      this.logger.warn({ err: { message: error.message } }, 'a store key’s last use could not be recorded');
    });
  }
}
