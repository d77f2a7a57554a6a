import { Injectable } from '@nestjs/common';
import type { Role } from '../auth-context/principal.js';
import type { StoreReference } from '../auth-context/store-scope.js';
import { Databases } from './db-scope.js';

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

/**
 * The guards' one database round trip per request (app_authorize): checks the session is open and
 * reads role, membership and permissions from the database, with the relation to the store the
 * route names. Nothing is taken from the access token's claims but the session it names.
 */
@Injectable()
export class CallerLookup {
  constructor(private readonly databases: Databases) {}

  async lookUp(sessionId: string, reference: StoreReference | null): Promise<CallerFacts | null> {
    const rows: {
      user_id: string;
      email: string;
      role: Role;
      store_id: string | null;
      relation: StoreRelation | null;
      permissions: string[] | null;
      record_owner: string | null;
      store_count: number | null;
    }[] = await this.databases.request.query('SELECT * FROM app_authorize($1, $2, $3, $4, $5, $6)', [
      sessionId,
      this.databases.proof(sessionId),
      reference?.store ?? null,
      reference?.resource ?? null,
      reference?.record ?? null,
      reference?.onlyStore ?? false,
    ]);
    const row = rows[0];
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
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the AuthGuard on store-scoped routes: what StoreAccessGuard judges. */
    callerFacts?: CallerFacts;
  }
}
