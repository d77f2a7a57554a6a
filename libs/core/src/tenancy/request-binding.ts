import { createHmac } from 'node:crypto';
import { Inject, Injectable, Module } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { BoundedCache } from '../crypto/bounded-cache.js';
import { databaseConfig, type DatabaseConfig } from '../database/database.config.js';
import { ApiError } from '../errors/api-error.js';
import type { RequestPrincipal } from './principal.js';

/** The proof that binds a transaction to a session: an HMAC of its id under the installation key. */
export function sessionProof(key: Buffer, sessionId: string): string {
  return createHmac('sha256', key).update(`session:${sessionId}`).digest('hex');
}

/**
 * What binds a request-role transaction to its caller, under the installation key: the proofs of a
 * session or a store key, and the tickets of the narrow functions that cross users.
 */
@Injectable()
export class RequestBinding {
  private readonly proofs = new BoundedCache<string, string>(10_000);

  constructor(@Inject(databaseConfig.KEY) private readonly config: DatabaseConfig) {}

  /**
   * A ticket for a narrow function that crosses users (opening a session for an account, reading a
   * password hash): an HMAC under the installation key of what the API vouches for, valid a minute.
   */
  ticket(purpose: string, subject: string): string {
    const issued = String(Date.now());
    return `${issued}.${createHmac('sha256', this.key()).update(`${purpose}:${subject}:${issued}`).digest('hex')}`;
  }

  private key(): Buffer {
    if (!this.config.requestBindingKey)
      throw new Error('The request-binding key is unknown: prepareDatabase has not run');
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
}

/** The binding alone, for the connections and for whoever needs a ticket or a bind (without the connections). */
@Module({ providers: [RequestBinding], exports: [RequestBinding] })
export class RequestBindingModule {}
