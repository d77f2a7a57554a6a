import { Injectable } from '@nestjs/common';
import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { EntityManager } from 'typeorm';
import { Connections } from './connections.js';
import { currentDbScope, DbScopes } from './current-scope.js';

declare const SCOPE: unique symbol;

/**
 * A transaction (or the bound statements) of the request role: row-level security applies, and in
 * a signed-in request it is bound to the caller's session. What a tenant's request reads and writes
 * goes through one of these.
 */
export type TenantTx = EntityManager & { readonly [SCOPE]: 'tenant' };

/**
 * A transaction (or statements) of the service role: workers, sweeps and the boot, across stores.
 * Only `SystemDb.run` enters the scope that yields one, and only the workers' files call it (see
 * system-scope-callers.spec.ts): request code never holds one.
 */
export type SystemTx = EntityManager & { readonly [SCOPE]: 'system' };

/**
 * The request role's database, as a repository sees it: `tenant.tx` is the current request's
 * RLS-bound transaction. Asked for from a worker's system scope it throws instead of quietly
 * answering with the service role, so a tenant query cannot run with the workers' rights by mistake.
 */
@Injectable()
export class TenantDb {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly connections: Connections,
  ) {}

  get tx(): TenantTx {
    const scope = currentDbScope();
    if (scope?.kind !== 'request' && scope?.kind !== 'anonymous') {
      throw new Error(`A tenant query ran ${scope ? 'in the system scope' : 'outside any database scope'}`);
    }
    return this.txHost.tx as TenantTx;
  }

  /**
   * Runs `work` in a transaction of its own, bound to the caller like the request's: for routes that
   * commit in steps (`@OwnTransactions`), and for code that must commit before it answers
   * (`Propagation.RequiresNew`: a transaction of its own even inside the request's).
   */
  transaction<T>(work: () => Promise<T>, propagation?: Propagation): Promise<T> {
    return propagation ? this.txHost.withTransaction(propagation, work) : this.txHost.withTransaction(work);
  }

  /** Whether a transaction is open here (the request's, or one of `transaction`) rather than single statements. */
  get inTransaction(): boolean {
    return this.txHost.isTransactionActive();
  }

  /**
   * The request role's statements bound to no one, in any scope: row-level security shows them
   * nothing, so they reach only the narrow functions made for callers without a session (a cover
   * image, the social sandbox, the steps of a social connect's browser round trip).
   */
  get unbound(): TenantTx {
    return this.connections.request.manager as TenantTx;
  }
}

/**
 * The database of whoever calls: for the few steps a request and a worker both run (publishing a
 * post now or on schedule, dropping a webhook's pending deliveries). `tx` is the caller's own scope's
 * transaction, typed as either, so the code cannot assume the workers' rights; outside any scope it throws.
 */
@Injectable()
export class ScopedDb {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  get tx(): TenantTx | SystemTx {
    if (!currentDbScope()) throw new Error('The database was queried outside any database scope');
    return this.txHost.tx as TenantTx | SystemTx;
  }

  /** Runs `work` in a transaction of the caller's scope (the open one, if any). */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.txHost.withTransaction(work);
  }
}

/**
 * The service role's database: `run` enters the system scope (outside any transaction of the
 * caller), `tx` is the system scope's current transaction or statements, `transaction` opens one
 * (or joins the one open). `tx` outside the system scope throws.
 */
@Injectable()
export class SystemDb {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly scopes: DbScopes,
  ) {}

  get tx(): SystemTx {
    if (currentDbScope()?.kind !== 'system') throw new Error('A system query ran outside the system scope');
    return this.txHost.tx as SystemTx;
  }

  /** Runs `work` as the system: the service role, outside any transaction of the caller. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.scopes.asSystem(work);
  }

  /** Runs `work` in a system transaction (the open one, if any). */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    if (currentDbScope()?.kind !== 'system')
      throw new Error('A system transaction was opened outside the system scope');
    return this.txHost.withTransaction(work);
  }
}
