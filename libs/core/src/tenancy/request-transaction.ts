import { Logger } from '@nestjs/common';
import { ClsServiceManager } from 'nestjs-cls';
import pg from 'pg';
import { QueryFailedError, type EntityManager, type QueryRunner } from 'typeorm';

const REQUEST_TRANSACTION = 'storefront:request-transaction';

/**
 * A value for a statement sent as text: quoted by the driver's own rules, or NULL. A string with no quote
 * and no backslash (every UUID and hex proof) is the driver's answer without its character-by-character
 * copy: `'value'`, as `escapeLiteral` writes it.
 */
export function sqlLiteral(value: string | boolean | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value.indexOf("'") === -1 && value.indexOf('\\') === -1) return `'${value}'`;
  return pg.escapeLiteral(value);
}

/**
 * The transaction a request's handler runs in, opened by the JWT strategy together with the caller's
 * lookup (`START TRANSACTION` and `app_authorize_request` in one round trip): by the time the guards
 * have judged the caller, the transaction is bound to the session. Exactly one party closes it:
 *
 * - the scoped transactional adapter, which adopts it for the handler (commits when the handler
 *   returns, rolls back when it throws), as TypeORM's own `transaction()` would;
 * - or, when a later guard refuses the request and no handler runs, the error filter (`abandon`),
 *   with the response hook as a safety net: rolled back, the connection back in the pool.
 */
export class RequestTransaction {
  private static readonly logger = new Logger('RequestTransaction');
  private state: 'open' | 'adopted' | 'closed' = 'open';
  private readonly committed: (() => Promise<void>)[] = [];

  constructor(private readonly runner: QueryRunner) {
    // TypeORM did not send the START TRANSACTION itself: tell its runner, so that nested work makes
    // savepoints and the commit below is the one that ends the transaction.
    Object.assign(runner as unknown as { isTransactionActive: boolean; transactionDepth: number }, {
      isTransactionActive: true,
      transactionDepth: 1,
    });
  }

  /**
   * Runs `work` once the current request's transaction has committed, before the answer goes out,
   * and never when it rolls back: for what must not happen before the data exists (a job that reads
   * it). Outside a request transaction `work` runs at once. `work` handles its own errors.
   */
  static async afterCommit(work: () => Promise<void>): Promise<void> {
    const cls = ClsServiceManager.getClsService();
    const transaction = cls.isActive() ? cls.get<RequestTransaction | undefined>(REQUEST_TRANSACTION) : undefined;
    if (transaction?.state === 'adopted') transaction.committed.push(work);
    else await work();
  }

  /** The transaction of the current request context, still waiting for its handler, if any. */
  static current(): RequestTransaction | undefined {
    const cls = ClsServiceManager.getClsService();
    const transaction = cls.isActive() ? cls.get<RequestTransaction | undefined>(REQUEST_TRANSACTION) : undefined;
    return transaction?.state === 'open' ? transaction : undefined;
  }

  /** Makes this the current request context's transaction (the JWT strategy, once the caller is known). */
  enter(): void {
    const cls = ClsServiceManager.getClsService();
    if (cls.isActive()) cls.set(REQUEST_TRANSACTION, this);
  }

  get manager(): EntityManager {
    return this.runner.manager;
  }

  /** Runs the handler in the transaction: commits when it returns, rolls back when it throws. */
  async adopt<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.state !== 'open') throw new Error('The request transaction was already taken or closed');
    this.state = 'adopted';
    let result: T;
    try {
      result = await work(this.runner.manager);
      await this.commit();
    } catch (error) {
      await this.runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      this.state = 'closed';
      await this.runner.release();
    }
    for (const then of this.committed.splice(0)) await then();
    return result;
  }

  /**
   * COMMIT, sent on the runner's pg connection as TypeORM's `commitTransaction` sends it, without its
   * subscriber events and query logging around it (this project registers neither): a statement fewer
   * through TypeORM's per-query work on every request. A failed COMMIT is TypeORM's `QueryFailedError`,
   * and the runner still counts the transaction as open, so the rollback above ends it, as before.
   *
   * PostgreSQL answers the COMMIT of a transaction a statement already failed in with `ROLLBACK`, not an
   * error: were a handler to catch a statement's error and return, nothing would be kept while the
   * request answered as if it had been. That answer is a refusal here too (SQLSTATE 25P02, "in failed
   * transaction"), so the request fails and no work after the commit runs.
   */
  private async commit(): Promise<void> {
    const runner = this.runner as QueryRunner & { databaseConnection?: pg.PoolClient; transactionDepth: number };
    const connection = runner.isReleased ? undefined : runner.databaseConnection;
    // A released runner (its connection lost) or one still inside a savepoint (no handler leaves one open:
    // every nested transaction closes its own) is left to TypeORM, which refuses or commits as it did.
    if (connection === undefined || runner.transactionDepth !== 1) return runner.commitTransaction();
    let result: pg.QueryResult;
    try {
      result = await connection.query('COMMIT');
    } catch (error) {
      throw new QueryFailedError('COMMIT', [], error as Error);
    }
    Object.assign(runner as unknown as { isTransactionActive: boolean }, { isTransactionActive: false });
    runner.transactionDepth = 0;
    if (result.command !== 'COMMIT') {
      const rolledBack = Object.assign(new Error('the transaction had failed: its COMMIT rolled it back'), {
        code: '25P02',
      });
      throw new QueryFailedError('COMMIT', [], rolledBack);
    }
  }

  /** Rolls back and releases a transaction no handler adopted (the request was refused); a no-op otherwise. */
  abandon(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    void this.runner
      .rollbackTransaction()
      .catch((error: Error) => {
        RequestTransaction.logger.warn(
          { err: { message: error.message } },
          'a refused request transaction could not be rolled back',
        );
      })
      .finally(() => this.runner.release());
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's transaction, opened by the JWT strategy (see RequestTransaction). */
    requestTransaction?: RequestTransaction;
  }
}
