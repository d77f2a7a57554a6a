import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TransactionHost, type TransactionalAdapter } from '@nestjs-cls/transactional';
import { ClsService, ClsServiceManager } from 'nestjs-cls';
import { DataSource, type EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';
import type { RequestPrincipal } from '../auth-context/principal.js';
import { BoundedCache } from '../crypto/bounded-cache.js';
import { ApiError } from '../errors/api-error.js';
import { databaseConfig, type DatabaseConfig } from './database.config.js';
import { RequestTransaction } from './request-transaction.js';

/** The name of the workers' connection (DATABASE_SERVICE_URL); the default one is the request role's. */
export const SERVICE_CONNECTION = 'service';

/**
 * Whose database access the current async context is: a signed-in user's request (the request role,
 * every transaction bound to the user's session), a caller not signed in yet (the request role,
 * unbound: only the narrow functions of signing up and in answer anything, until the code binds the
 * session it opened), or the system (the workers' role). Code in none of them fails loudly instead of
 * quietly getting a connection.
 */
export type DbScope = { kind: 'request'; principal: RequestPrincipal } | { kind: 'anonymous' } | { kind: 'system' };
const DB_SCOPE = 'storefront:db-scope';

/** The proof that binds a transaction to a session: an HMAC of its id under the installation key. */
export function sessionProof(key: Buffer, sessionId: string): string {
  return createHmac('sha256', key).update(`session:${sessionId}`).digest('hex');
}

/** Both connections, and the binding of request transactions. */
@Injectable()
export class Databases {
  private readonly proofs = new BoundedCache<string, string>(10_000);

  constructor(
    @InjectDataSource() readonly request: DataSource,
    @InjectDataSource(SERVICE_CONNECTION) readonly service: DataSource,
    @Inject(databaseConfig.KEY) private readonly config: DatabaseConfig,
  ) {}

  /**
   * A ticket for a narrow function that crosses users (opening a session for an account, reading a
   * password hash): an HMAC under the installation key of what the API vouches for, valid a minute.
   */
  ticket(purpose: string, subject: string): string {
    const issued = String(Date.now());
    return `${issued}.${createHmac('sha256', this.key()).update(`${purpose}:${subject}:${issued}`).digest('hex')}`;
  }

  private key(): Buffer {
    if (!this.config.requestBindingKey) throw new Error('The request-binding key is unknown: prepareDatabase has not run');
    return this.config.requestBindingKey;
  }

  /** The session's binding proof: an HMAC, computed once per session and kept for the next requests. */
  proof(sessionId: string): string {
    return this.proofs.getOrSet(sessionId, (id) => sessionProof(this.key(), id));
  }

  /** A store key's binding proof: an HMAC of its id (another domain than a session's). */
  keyProof(keyId: string): string {
    const subject = `api_key:${keyId}`;
    return this.proofs.getOrSet(subject, () => createHmac('sha256', this.key()).update(subject).digest('hex'));
  }

  /**
   * Binds the transaction to the user's session (app_bind_request), or to the store key
   * (app_bind_api_key): from here on, row-level security sees exactly what this caller may see. A
   * session that ended (a key revoked or expired) meanwhile is a 401.
   */
  async bind(manager: EntityManager, principal: RequestPrincipal): Promise<void> {
    if (principal.kind === 'api_key') {
      const proof = this.keyProof(principal.keyId);
      const [bound] = await manager.query('SELECT app_bind_api_key($1, $2) AS bound', [principal.keyId, proof]);
      if (bound?.bound !== true) throw ApiError.unauthenticated('Store key has been revoked or has expired');
      return;
    }
    const rows: unknown[] = await manager.query('SELECT 1 FROM app_bind_request($1, $2)', [
      principal.sessionId,
      this.proof(principal.sessionId),
    ]);
    if (rows.length === 0) throw ApiError.unauthenticated('Session has ended; sign in again');
  }

  /**
   * For request code outside a transaction (routes that commit in steps): each statement runs in a
   * bound transaction of its own, so it is as row-level-secured as inside one.
   */
  boundStatements(principal: RequestPrincipal): EntityManager {
    const query = (sql: string, parameters?: unknown[]) =>
      this.request.transaction(async (manager) => {
        await this.bind(manager, principal);
        return manager.query(sql, parameters);
      });
    return { query } as unknown as EntityManager;
  }
}

/** The database scope of the current async context, if any. */
export /** The service login's DataSource, for the adapter's system scope alone (Databases keeps it private). */
function serviceDataSource(databases: Databases): DataSource {
  return databases['service'];
}

/** The database scope of the current async context, if any. */
export function currentDbScope(): DbScope | undefined {
  const cls = ClsServiceManager.getClsService();
  return cls.isActive() ? cls.get<DbScope | undefined>(DB_SCOPE) : undefined;
}

/**
 * The TypeORM adapter of @nestjs-cls/transactional, with the connection chosen by the scope: a
 * request's transactions run as the request role and are bound to the session first; the system's
 * run as the service role. Outside a transaction, a request's statements each get a bound transaction
 * of their own; code in neither scope cannot query at all.
 */
export class ScopedTypeOrmAdapter implements TransactionalAdapter<Databases, EntityManager, { isolationLevel?: IsolationLevel }> {
  connectionToken = Databases;

  optionsFactory = (databases: Databases) => ({
    wrapWithTransaction: async (
      options: { isolationLevel?: IsolationLevel } | undefined,
      fn: (...args: unknown[]) => Promise<unknown>,
      setClient: (client?: EntityManager) => void,
    ) => {
      const scope = currentDbScope();
      if (!scope) throw new Error('A transaction was opened outside any database scope (no request user, not the system)');
      // The request's own transaction, opened and bound by the JWT strategy with the caller's lookup.
      const opened = scope.kind === 'request' && !options?.isolationLevel ? RequestTransaction.current() : undefined;
      if (opened) {
        return opened.adopt((manager) => {
          setClient(manager);
          return fn();
        });
      }
      const dataSource = scope.kind === 'system' ? serviceDataSource(databases) : databases.request;
      return dataSource.transaction(options?.isolationLevel as IsolationLevel, async (manager) => {
        setClient(manager);
        if (scope.kind === 'request') await databases.bind(manager, scope.principal);
        return fn();
      });
    },
    getFallbackInstance: (): EntityManager => {
      const scope = currentDbScope();
      if (scope?.kind === 'system') return serviceDataSource(databases).manager;
      if (scope?.kind === 'request') return databases.boundStatements(scope.principal);
      throw new Error(
        scope ? 'Sign-in code queried the database outside its transaction' : 'The database was queried outside any database scope',
      );
    },
  });
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
        new Error(`The system scope was asked for from a ${current.kind} scope: requests never run as the service login`),
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
