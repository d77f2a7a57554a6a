import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { EntityManager } from 'typeorm';
import { ApiError, AppConfig, DbScopes, decodeCursor, queryRows, toPage } from '@app/core';
import { AI_FUNCTIONS, CREDIT_COSTS, hourlyLimits, USAGE_WINDOW_SECONDS, type AiFunction } from './credit-costs.js';
import { toLedgerEntryView, type Charge, type LedgerEntryView, type LedgerRow } from './credit-ledger.js';

export interface FunctionUsage {
  used_last_hour: number;
  limit: number;
}

export interface CreditsOverview {
  balance: number;
  usage: Record<AiFunction, FunctionUsage>;
  ledger: LedgerEntryView[];
  next_cursor: string | null;
}

/** Largest single grant: keeps a typo from minting billions (and the balance within integer range). */
export const MAX_GRANT = 1_000_000;

/**
 * The credit ledger. Every change locks the store's account row first, so concurrent charges of
 * one store run one after another: the hourly count and the balance a charge checks are the ones it
 * writes against, and the balance can never go below zero (the column's CHECK is the last net).
 */
@Injectable()
export class CreditsService {
  readonly limits: Readonly<Record<AiFunction, number>>;

  constructor(
    private readonly scopes: DbScopes,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly config: AppConfig,
  ) {
    this.limits = hourlyLimits(config.AI_HOURLY_LIMITS);
  }

  /**
   * Takes the function's cost from the store in one transaction that also enforces the hourly
   * maximum: 429 RATE_LIMITED (Retry-After: until the oldest counted call leaves the window) or
   * 402 INSUFFICIENT_CREDITS, charging nothing. Refunded calls do not count towards the maximum.
   */
  async charge(storeId: string, fn: AiFunction, reference: string | null, userId: string | null): Promise<Charge> {
    const cost = CREDIT_COSTS[fn];
    const limit = this.limits[fn];
    return this.ledgerTransaction(async (manager) => {
      const balance = await this.lockAccount(manager, storeId);
      const [usage] = await queryRows<{ used: number; retry_after: number | null }>(
        manager,
        `SELECT count(*)::int AS used,
                EXTRACT(EPOCH FROM min(c.created_at) + make_interval(secs => $3) - clock_timestamp())::float8 AS retry_after
           FROM credit_ledger c
          WHERE c.store_id = $1 AND c.kind = 'charge' AND c.function = $2
            AND c.created_at > clock_timestamp() - make_interval(secs => $3)
            AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.refund_of = c.id)`,
        [storeId, fn, USAGE_WINDOW_SECONDS],
      );
      if (usage.used >= limit) throw ApiError.rateLimited(limit, USAGE_WINDOW_SECONDS, usage.retry_after ?? USAGE_WINDOW_SECONDS);
      if (balance < cost) throw ApiError.insufficientCredits(cost, balance);
      const [entry] = await queryRows<{ id: string }>(
        manager,
        `INSERT INTO credit_ledger (store_id, kind, amount, function, reference, created_by)
         VALUES ($1, 'charge', $2, $3, $4, $5) RETURNING id`,
        [storeId, -cost, fn, reference, userId],
      );
      const after = await this.addToBalance(manager, storeId, -cost);
      return { id: entry.id, storeId, function: fn, amount: cost, balance: after };
    });
  }

  /** Gives a charge back (the provider failed). A charge is refunded at most once. */
  async refund(charge: Charge): Promise<number> {
    return this.ledgerTransaction(async (manager) => {
      await this.lockAccount(manager, charge.storeId);
      const inserted = await queryRows(
        manager,
        `INSERT INTO credit_ledger (store_id, kind, amount, function, refund_of)
         VALUES ($1, 'refund', $2, $3, $4) ON CONFLICT (refund_of) DO NOTHING RETURNING id`,
        [charge.storeId, charge.amount, charge.function, charge.id],
      );
      return inserted.length > 0 ? this.addToBalance(manager, charge.storeId, charge.amount) : this.lockAccount(manager, charge.storeId);
    });
  }

  /** An admin's grant; 404 when there is no such store. */
  async grant(storeId: string, amount: number, reason: string, userId: string): Promise<number> {
    return this.ledgerTransaction(async (manager) => {
      const [store] = await queryRows(manager, `SELECT 1 FROM stores WHERE id = $1`, [storeId]);
      if (!store) throw ApiError.notFound('Store');
      const balance = await this.lockAccount(manager, storeId);
      if (balance + amount > 2_000_000_000) throw ApiError.conflict('The balance would exceed 2,000,000,000 credits');
      await queryRows(
        manager,
        `INSERT INTO credit_ledger (store_id, kind, amount, reference, created_by) VALUES ($1, 'grant', $2, $3, $4)`,
        [storeId, amount, reason, userId],
      );
      return this.addToBalance(manager, storeId, amount);
    });
  }

  /**
   * Opens a new store's account with the welcome credits, inside the transaction that creates the
   * store (which runs as the request role: the database function does the writing).
   */
  async openAccount(storeId: string): Promise<void> {
    await this.txHost.tx.query(`SELECT app_open_credit_account($1, $2)`, [storeId, this.config.STORE_WELCOME_CREDITS]);
  }

  /** Balance, per-function usage of the last hour and a page of the ledger, newest first (in the request transaction, under RLS). */
  async overview(storeId: string, limit: number, cursor: string | undefined): Promise<CreditsOverview> {
    const manager = this.txHost.tx;
    const [account] = await queryRows<{ balance: number }>(manager, `SELECT balance FROM credit_accounts WHERE store_id = $1`, [storeId]);
    const used = await queryRows<{ function: AiFunction; used: number }>(
      manager,
      `SELECT c.function, count(*)::int AS used
         FROM credit_ledger c
        WHERE c.store_id = $1 AND c.kind = 'charge' AND c.created_at > clock_timestamp() - make_interval(secs => $2)
          AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.refund_of = c.id)
        GROUP BY c.function`,
      [storeId, USAGE_WINDOW_SECONDS],
    );
    const usage = Object.fromEntries(
      AI_FUNCTIONS.map((fn) => [fn, { used_last_hour: used.find((row) => row.function === fn)?.used ?? 0, limit: this.limits[fn] }]),
    ) as Record<AiFunction, FunctionUsage>;
    const after = cursor ? decodeCursor(cursor) : null;
    const rows = await queryRows<LedgerRow>(
      manager,
      `SELECT id, kind, amount, function, reference, refund_of, created_at
         FROM credit_ledger
        WHERE store_id = $1 ${after ? 'AND (created_at, id) < ($3, $4)' : ''}
        ORDER BY created_at DESC, id DESC
        LIMIT $2`,
      after ? [storeId, limit + 1, after.createdAt, after.id] : [storeId, limit + 1],
    );
    const page = toPage(rows, limit, toLedgerEntryView);
    return { balance: account?.balance ?? 0, usage, ledger: page.data, next_cursor: page.next_cursor };
  }

  /**
   * Ledger writes run as the system (requests may only read the ledger): the route's guard has
   * checked the caller's right to charge, refund or grant.
   */
  private ledgerTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.scopes.asSystem(() => this.txHost.withTransaction(() => work(this.txHost.tx)));
  }

  /** Locks the store's account row (creating it empty if missing) and answers its balance. */
  private async lockAccount(manager: EntityManager, storeId: string): Promise<number> {
    const [row] = await queryRows<{ balance: number }>(manager, `SELECT balance FROM credit_accounts WHERE store_id = $1 FOR UPDATE`, [
      storeId,
    ]);
    if (row) return row.balance;
    await queryRows(manager, `INSERT INTO credit_accounts (store_id, balance) VALUES ($1, 0) ON CONFLICT DO NOTHING`, [storeId]);
    return this.lockAccount(manager, storeId);
  }

  private async addToBalance(manager: EntityManager, storeId: string, delta: number): Promise<number> {
    const [row] = await queryRows<{ balance: number }>(
      manager,
      `UPDATE credit_accounts SET balance = balance + $2, updated_at = clock_timestamp() WHERE store_id = $1 RETURNING balance`,
      [storeId, delta],
    );
    return row.balance;
  }
}
