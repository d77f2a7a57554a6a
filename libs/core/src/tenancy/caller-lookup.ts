import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { Connections } from './connections.js';
import type { Role } from './principal.js';
import { RequestBinding } from './request-binding.js';
import { RequestTransaction, sqlLiteral } from './request-transaction.js';
import type { StoreReference } from './store-location.js';

/** How a caller relates to a store: `admin`, `owner`, `member` (with permissions) or `customer`. */
export type StoreRelation = 'admin' | 'owner' | 'member' | 'customer';

/** The caller as the database knows it now, and (when asked) its relation to a store. */
export interface CallerFacts {
  userId: string;
  email: string;
  role: Role;
  /** The store asked about (or the record's, or the caller's only one); null when the caller has no relation to it. */
  storeId: string | null;
  relation: StoreRelation | null;
  /** A member's permissions (null for other relations). */
  permissions: string[] | null;
  /** The user a customer or order record belongs to (customers may act on their own records). */
  recordOwner: string | null;
  /** With `onlyStore`: how many stores the caller has (0, 1 or 2 meaning "several"). */
  storeCount: number | null;
}

type AuthorizeRow = {
  user_id: string;
  email: string;
  role: Role;
  store_id: string | null;
  relation: StoreRelation | null;
  permissions: string[] | null;
  record_owner: string | null;
  store_count: number | null;
};

/** What `app_authorize_api_key` returns: the live key, and whether the route's store is its store. */
interface KeyRow {
  key_id: string;
  key_store: string;
  permissions: string[];
  store_id: string | null;
  store_count: number | null;
}

/** A store key as the database knows it now, with the facts the store guard judges (a member of its one store). */
export interface KeyFacts {
  keyId: string;
  storeId: string;
  permissions: string[];
  facts: CallerFacts;
}

/** A key's lookup that opened the request transaction, bound to the key. */
export interface OpenedKey {
  key: KeyFacts;
  transaction: RequestTransaction;
}

function toKeyFacts(row: KeyRow | undefined): KeyFacts | null {
  if (!row) return null;
  return {
    keyId: row.key_id,
    storeId: row.key_store,
    permissions: row.permissions,
    // A key is no user: its facts name the key, and it relates to its own store only, as a member would.
    facts: {
      userId: row.key_id,
      email: '',
      role: 'team_member',
      storeId: row.store_id,
      relation: row.store_id ? 'member' : null,
      permissions: row.permissions,
      recordOwner: null,
      storeCount: row.store_count,
    },
  };
}

function toFacts(row: AuthorizeRow | undefined): CallerFacts | null {
  if (!row) return null;
  return {
    userId: row.user_id,
    email: row.email,
    role: row.role,
    storeId: row.store_id,
    relation: row.relation,
    permissions: row.permissions,
    recordOwner: row.record_owner,
    storeCount: row.store_count,
  };
}

/**
 * The guards' one database round trip per request: checks the session is open and reads role,
 * membership and permissions from the database, with the relation to the store the route names.
 * Nothing is taken from the access token's claims but the session it names.
 */
@Injectable()
export class CallerLookup {
  constructor(
    private readonly connections: Connections,
    private readonly binding: RequestBinding,
  ) {}

  /** For a request that runs no request transaction: `app_authorize`, on its own. */
  async lookUp(sessionId: string, reference: StoreReference | null): Promise<CallerFacts | null> {
    const rows: AuthorizeRow[] = await this.connections.request.query(
      'SELECT * FROM app_authorize($1, $2, $3, $4, $5, $6)',
      [
        sessionId,
        this.binding.proof(sessionId),
        reference?.store ?? null,
        reference?.resource ?? null,
        reference?.record ?? null,
        reference?.onlyStore ?? false,
      ],
    );
    return toFacts(rows[0]);
  }

  /**
   * For a request whose handler runs in one transaction: opens it and looks the caller up in the same
   * round trip (`START TRANSACTION; SELECT … app_authorize_request(…)`, one simple-protocol message,
   * so its values are sent as quoted literals: a UUID-checked session and store, a hex proof). The
   * transaction comes back bound to the session; null (and nothing held) when the session is not open.
   */
  async open(
    sessionId: string,
    reference: StoreReference | null,
  ): Promise<{ facts: CallerFacts; transaction: RequestTransaction } | null> {
    const runner = this.connections.request.createQueryRunner();
    const client = (await runner.connect()) as pg.PoolClient;
    const transaction = new RequestTransaction(runner);
    try {
      const values = [
        sqlLiteral(sessionId),
        sqlLiteral(this.binding.proof(sessionId)),
        sqlLiteral(reference?.store ?? null),
        sqlLiteral(reference?.resource ?? null),
        sqlLiteral(reference?.record ?? null),
        sqlLiteral(reference?.onlyStore ?? false),
      ];
      const results = (await client.query(
        `START TRANSACTION; SELECT * FROM app_authorize_request(${values[0]}::uuid, ${values[1]}, ` +
          `${values[2]}::uuid, ${values[3]}, ${values[4]}::uuid, ${values[5]})`,
      )) as unknown as pg.QueryResult<AuthorizeRow>[];
      const facts = toFacts(results[1]?.rows[0]);
      if (facts) return { facts, transaction };
    } catch (error) {
      transaction.abandon();
      throw error;
    }
    transaction.abandon();
    return null;
  }
}

/**
 * The lookup of a store key (`Authorization: Bearer sk_…`), by the SHA-256 of its secret, always as a
 * bind parameter: one round trip per request, and on routes whose handler runs in one transaction a
 * `START TRANSACTION` before it, so the lookup binds that transaction to the key.
 */
@Injectable()
export class ApiKeyLookup {
  constructor(private readonly connections: Connections) {}

  async lookUp(secretHash: string, reference: StoreReference | null): Promise<KeyFacts | null> {
    const sql = 'SELECT * FROM app_authorize_api_key($1, $2, $3, $4, $5, false)';
    const rows: KeyRow[] = await this.connections.request.query(sql, [
      secretHash,
      reference?.store ?? null,
      reference?.resource ?? null,
      reference?.record ?? null,
      reference?.onlyStore ?? false,
    ]);
    return toKeyFacts(rows[0]);
  }

  /**
   * Opens the request transaction, then looks the key up in it (two round trips): the hash alone
   * authorizes, so it travels as a bind parameter (extended protocol), never in the statement's text,
   * which every other request connection can read in `pg_stat_activity`.
   */
  async open(secretHash: string, reference: StoreReference | null): Promise<OpenedKey | null> {
    const runner = this.connections.request.createQueryRunner();
    const client = (await runner.connect()) as pg.PoolClient;
    const transaction = new RequestTransaction(runner);
    try {
      await client.query('START TRANSACTION');
      const result = await client.query<KeyRow>('SELECT * FROM app_authorize_api_key($1, $2, $3, $4, $5, true)', [
        secretHash,
        reference?.store ?? null,
        reference?.resource ?? null,
        reference?.record ?? null,
        reference?.onlyStore ?? false,
      ]);
      const key = toKeyFacts(result.rows[0]);
      if (key) return { key, transaction };
    } catch (error) {
      transaction.abandon();
      throw error;
    }
    transaction.abandon();
    return null;
  }

  /**
   * Records that the key was used: at most one write a minute per key (the database's condition),
   * never waiting on a lock.
   */
  async touch(secretHash: string): Promise<void> {
    await this.connections.request.query('SELECT app_touch_api_key($1)', [secretHash]);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the JWT strategy on store-scoped routes: what StoreAccessGuard judges. */
    callerFacts?: CallerFacts;
  }
}
