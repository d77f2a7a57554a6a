import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { ClsService, ClsServiceManager } from 'nestjs-cls';
import type { RequestPrincipal } from './principal.js';

/**
 * Whose database access the current async context is: a signed-in user's request (the request role,
 * every transaction bound to the user's session), a caller not signed in yet (the request role,
 * unbound: only the narrow functions of signing up and in answer anything, until the code binds the
 * session it opened), or the system (the workers' role). Code in none of them fails loudly instead of
 * quietly getting a connection.
 */
export type DbScope = { kind: 'request'; principal: RequestPrincipal } | { kind: 'anonymous' } | { kind: 'system' };
const DB_SCOPE = 'storefront:db-scope';

/** The database scope of the current async context, if any. */
export function currentDbScope(): DbScope | undefined {
  const cls = ClsServiceManager.getClsService();
  return cls.isActive() ? cls.get<DbScope | undefined>(DB_SCOPE) : undefined;
}

/** Enters the database scopes. */
@Injectable()
export class DbScopes {
  constructor(
    private readonly cls: ClsService,
    private readonly txHost: TransactionHost,
  ) {}

  /**
   * Runs `work` as the system (the service role), outside any transaction of the caller. Refused
   * from a request's or a sign-in's scope: whatever a request calls, it never gets the service login.
   */
  asSystem<T>(work: () => Promise<T>): Promise<T> {
    const current = currentDbScope();
    if (current && current.kind !== 'system') {
      return Promise.reject(
        new Error(
          `The system scope was asked for from a ${current.kind} scope: requests never run as the service login`,
        ),
      );
    }
    return this.cls.run({ ifNested: 'inherit' }, () => {
      this.cls.set(DB_SCOPE, { kind: 'system' } satisfies DbScope);
      return this.txHost.withoutTransaction(work);
    });
  }

  /** Runs `work` as a caller not signed in yet (sign-up, sign-in, refresh), outside any transaction of the caller. */
  asAnonymous<T>(work: () => Promise<T>): Promise<T> {
    return this.cls.run({ ifNested: 'inherit' }, () => {
      this.cls.set(DB_SCOPE, { kind: 'anonymous' } satisfies DbScope);
      return this.txHost.withoutTransaction(work);
    });
  }

  /** Makes the rest of this request's context the user's (called once the caller is identified). */
  enterRequest(principal: RequestPrincipal): void {
    if (this.cls.isActive()) this.cls.set(DB_SCOPE, { kind: 'request', principal } satisfies DbScope);
  }

  /** Runs `work` as the user, in a context of its own (outside HTTP: tests, tools). */
  asUser<T>(principal: RequestPrincipal, work: () => Promise<T>): Promise<T> {
    return this.cls.run({ ifNested: 'inherit' }, () => {
      this.cls.set(DB_SCOPE, { kind: 'request', principal } satisfies DbScope);
      return this.txHost.withoutTransaction(work);
    });
  }
}
