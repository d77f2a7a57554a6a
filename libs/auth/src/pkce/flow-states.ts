import { Injectable } from '@nestjs/common';
import { hashToken, queryRows, randomToken, RequestBinding, TenantDb } from '@app/core';
import { AUTH_CODE_TTL_SECONDS, type PkceChallenge } from './pkce.dto.js';

/** What a PKCE flow signs in by: an e-mailed link's type, or Google. */
export type FlowKind = 'signup' | 'recovery' | 'email_change' | 'magiclink' | 'google';

type Exchanged = { outcome: 'exchanged'; userId: string; kind: FlowKind };
export type Exchange = Exchanged | { outcome: 'not_found' | 'expired' | 'bad_verifier' };

/** Who proved the user: the e-mailed link of that token, or Google (with the challenge given at /authorize). */
type CodeSource = { linkHash: Buffer } | { kind: FlowKind; pkce: PkceChallenge };

/**
 * PKCE flows through the database's narrow functions (libs/auth/src/sql/flows.sql): a challenge waits
 * for its e-mailed link, the proven user then gets an auth code (stored as its SHA-256 only), and the
 * code is exchanged once, with its verifier, within AUTH_CODE_TTL_SECONDS. Runs in the caller's transaction.
 */
@Injectable()
export class FlowStates {
  constructor(
    private readonly db: TenantDb,
    private readonly binding: RequestBinding,
  ) {}

  /** The challenge waits for the link of `linkHash` (a token issued in this transaction) as long as the link lives. */
  async awaitLink(linkHash: Buffer, kind: FlowKind, pkce: PkceChallenge, ttlSeconds: number): Promise<void> {
    await queryRows(this.db.tx, 'SELECT auth_flow_await_link($1, $2, $3, $4, $5, $6)', [
      linkHash,
      kind,
      pkce.challenge,
      pkce.method,
      ttlSeconds,
      this.binding.ticket('flow-link', linkHash.toString('hex')),
    ]);
  }

  /**
   * An auth code for a user just proven: by the link of `linkHash` (null when no challenge waits for
   * that link: the implicit flow goes on), or by Google with the challenge given at /authorize.
   */
  async issueCode(userId: string, source: CodeSource): Promise<string | null> {
    const code = randomToken(32);
    const byLink = 'linkHash' in source;
    const [row] = await queryRows<{ issued: boolean }>(
      this.db.tx,
      'SELECT auth_flow_issue_code($1, $2, $3, $4, $5, $6, $7, $8) AS issued',
      [
        byLink ? source.linkHash : null,
        userId,
        byLink ? null : source.kind,
        byLink ? null : source.pkce.challenge,
        byLink ? null : source.pkce.method,
        hashToken(code),
        AUTH_CODE_TTL_SECONDS,
        this.binding.ticket('flow-code', userId),
      ],
    );
    return row.issued ? code : null;
  }

  /** Spends an auth code with its verifier. */
  async exchange(code: string, verifier: string): Promise<Exchange> {
    const [row] = await queryRows<{ outcome: Exchange['outcome']; user_id: string | null; kind: FlowKind | null }>(
      this.db.tx,
      'SELECT * FROM auth_flow_exchange($1, $2)',
      [hashToken(code), verifier],
    );
    if (row.outcome !== 'exchanged') return { outcome: row.outcome };
    return { outcome: 'exchanged', userId: row.user_id!, kind: row.kind! };
  }
}
