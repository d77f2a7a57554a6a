import { Injectable } from '@nestjs/common';
import { queryRows, ScopedDb, TenantDb } from '@app/core';
import type { SocialPlatformId } from '../platforms/registry.js';
import type { TokenSet } from '../platforms/social-platform.js';

export interface ConnectStateRow {
  store_id: string;
  user_id: string;
  platform: SocialPlatformId;
  redirect_url: string;
  code_verifier_sealed: string | null;
  expires_at: Date;
}

/** What the start URL learns of a state: `started` (bound to this browser), `already_started` or `expired`. */
export interface StartedState {
  outcome: 'started' | 'already_started' | 'expired';
  platform: SocialPlatformId;
  redirect_url: string;
  /** Only when `started`. */
  code_verifier_sealed: string | null;
  expires_at: Date;
}

/**
 * What the callback learns of a state: `taken` (to complete), `spent` (no completion asked for),
 * `browser_mismatch` or `expired`; store, user and verifier only when `taken`.
 */
export interface TakenState {
  outcome: 'taken' | 'spent' | 'browser_mismatch' | 'expired';
  store_id: string | null;
  user_id: string | null;
  platform: SocialPlatformId;
  redirect_url: string;
  code_verifier_sealed: string | null;
  expires_at: Date;
}

export interface SocialAccountRow {
  id: string;
  store_id: string;
  platform: SocialPlatformId;
  platform_account_id: string;
  username: string;
  display_name: string | null;
  access_token_sealed: string;
  refresh_token_sealed: string | null;
  token_expires_at: Date | null;
  scopes: string[];
  status: 'active' | 'reauthorize';
  created_at: Date;
  updated_at: Date;
}

/** A connected account, for the store and platform of the state it completes. */
export interface NewAccount {
  platformAccountId: string;
  username: string;
  displayName: string | null;
  accessTokenSealed: string;
  refreshTokenSealed: string | null;
  tokens: TokenSet;
}

/**
 * The SQL of connecting accounts and of the accounts themselves. Runs in the request's transaction
 * (row-level security) where there is one, else scoped by id (the publishing worker refreshing tokens);
 * the connect start and callback, which have no user, call the request role's definer functions.
 */
@Injectable()
export class SocialAccountRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly scoped: ScopedDb,
  ) {}

  // ——— Connect states ———

  async insertState(stateHash: string, row: ConnectStateRow): Promise<void> {
    await queryRows(
      this.db.tx,
      `INSERT INTO social_connect_states (state_hash, store_id, user_id, platform, redirect_url, code_verifier_sealed,
        expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [stateHash, row.store_id, row.user_id, row.platform, row.redirect_url, row.code_verifier_sealed, row.expires_at],
    );
  }

  // ——— Connect without a user: the request role's definer functions, outside any transaction ———
  // The browser opening the start URL and coming back from the platform carries no user, so these run
  // on the request role's connection directly, as the guards' app_authorize does (no scope, no context).

  /**
   * Binds a state to the first browser that opens its start URL (the hash of `browserSecret` is kept);
   * null for an unknown or already taken state.
   */
  async startState(stateHash: string, browserSecret: string): Promise<StartedState | null> {
    const rows: StartedState[] = await this.db.unbound.query('SELECT * FROM app_start_connect($1, $2)', [
      stateHash,
      browserSecret,
    ]);
    return rows[0] ?? null;
  }

  /**
   * Takes a state, once, whatever the outcome (see app_take_connect_state, libs/social/src/sql/accounts.sql): `taken`
   * only for the browser that started it, before it expires, with a `completion` to finish it with; null
   * for an unknown or already taken state.
   */
  async takeState(
    stateHash: string,
    browserSecret: string | null,
    completion: string | null,
  ): Promise<TakenState | null> {
    const rows: TakenState[] = await this.db.unbound.query('SELECT * FROM app_take_connect_state($1, $2, $3)', [
      stateHash,
      browserSecret,
      completion,
    ]);
    return rows[0] ?? null;
  }

  /**
   * Attaches the account to the store and platform of the state taken with `completion` (connecting a
   * platform again replaces the store's account for it); null when the state is no longer taken.
   */
  async completeConnect(stateHash: string, completion: string, account: NewAccount): Promise<string | null> {
    const rows: { account_id: string | null }[] = await this.db.unbound.query(
      'SELECT app_complete_connect($1, $2, $3, $4, $5, $6, $7, $8, $9) AS account_id',
      [
        stateHash,
        completion,
        account.platformAccountId,
        account.username,
        account.displayName,
        account.accessTokenSealed,
        account.refreshTokenSealed,
        account.tokens.expiresAt,
        account.tokens.scopes,
      ],
    );
    return rows[0]?.account_id ?? null;
  }

  // ——— Accounts ———

  accountsOfStore(storeId: string): Promise<SocialAccountRow[]> {
    return queryRows<SocialAccountRow>(
      this.scoped.tx,
      `SELECT * FROM social_accounts WHERE store_id = $1 ORDER BY platform`,
      [storeId],
    );
  }

  async accountForUpdate(id: string): Promise<SocialAccountRow | null> {
    return (
      (
        await queryRows<SocialAccountRow>(this.scoped.tx, `SELECT * FROM social_accounts WHERE id = $1 FOR UPDATE`, [
          id,
        ])
      )[0] ?? null
    );
  }

  async deleteAccount(id: string): Promise<boolean> {
    return (await queryRows(this.db.tx, `DELETE FROM social_accounts WHERE id = $1 RETURNING id`, [id])).length > 0;
  }

  async saveTokens(
    id: string,
    accessTokenSealed: string,
    refreshTokenSealed: string | null,
    expiresAt: Date | null,
  ): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE social_accounts SET access_token_sealed = $2, refresh_token_sealed = $3, token_expires_at = $4,
        status = 'active',
              updated_at = date_trunc('milliseconds', clock_timestamp())
        WHERE id = $1`,
      [id, accessTokenSealed, refreshTokenSealed, expiresAt],
    );
  }

  async markReauthorize(id: string): Promise<void> {
    await queryRows(
      this.scoped.tx,
      `UPDATE social_accounts SET status = 'reauthorize', updated_at = now() WHERE id = $1`,
      [id],
    );
  }
}
