import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { CreditCharge } from '@app/ai';
import { ApiError, decodeCursor, PRIVATE_SCHEMA, queryRows, SystemDb, TenantDb, toPage } from '@app/core';
import { MAX_BALANCE } from './credit-limits.js';
import {
  AI_FUNCTION_NAMES,
  CREDIT_COSTS,
  hourlyLimits,
  USAGE_WINDOW_SECONDS,
  type AiFunction,
} from './credit-costs.js';
import { toLedgerEntryView, type Charge, type LedgerEntryView, type LedgerRow } from './credit-ledger.js';
import { billingConfig, type BillingConfig } from './billing.config.js';

/** One AI function's calls against its hourly maximum (`FunctionUsage`). */
export class FunctionUsage {
  @ApiProperty({ type: 'integer', description: 'Calls in the last hour, refunded ones not counted', example: 1 })
  used_last_hour!: number;
  @ApiProperty({ type: 'integer', description: 'The most calls an hour (AI_HOURLY_LIMITS)', example: 20 })
  limit!: number;
}

export interface CreditsOverview {
  balance: number;
  usage: Record<AiFunction, FunctionUsage>;
  ledger: LedgerEntryView[];
  next_cursor: string | null;
}

export { MAX_GRANT } from './credit-limits.js';

/**
 * The credit ledger. Requests may only read it; every change goes through a database function
 * (libs/billing/src/sql/credits.sql) that locks the store's account row first, so concurrent
 * charges of one store run one after another: the hourly count and the balance a charge checks are
 * the ones it writes against, and the balance can never go below zero (the column's CHECK is the last net).
 */
@Injectable()
export class CreditsService implements OnModuleInit {
  readonly limits: Readonly<Record<AiFunction, number>>;

  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
    @Inject(billingConfig.KEY) private readonly config: BillingConfig,
  ) {
    this.limits = hourlyLimits(config.AI_HOURLY_LIMITS);
  }

  /**
   * The database enforces the prices, the hourly maxima and the welcome grant (a request cannot name
   * its own): the functions' declared prices and this process's settings are written where the
   * ledger functions read them.
   */
  async onModuleInit(): Promise<void> {
    await this.system.run(() =>
      queryRows(
        this.system.tx,
        `UPDATE ${PRIVATE_SCHEMA}.installation SET welcome_credits = $1, ai_hourly_limits = $2, ai_credit_costs = $3`,
        [this.config.STORE_WELCOME_CREDITS, JSON.stringify(this.limits), JSON.stringify(CREDIT_COSTS)],
      ),
    );
  }

  /**
   * Takes the function's cost from the store, atomically with the hourly maximum (app_charge_credits,
   * as the caller, a user or a store key, who must hold `ai` on the store; the ledger records which):
   * 429 RATE_LIMITED (Retry-After: until the
   * oldest counted call leaves the window) or 402 INSUFFICIENT_CREDITS, charging nothing. Refunded
   * calls do not count towards the maximum.
   */
  async charge(storeId: string, fn: AiFunction, reference: string | null): Promise<Charge> {
    const [result] = await queryRows<{
      outcome: 'charged' | 'rate_limited' | 'insufficient' | 'forbidden';
      charge_id: string | null;
      balance: number | null;
      used: number | null;
      retry_after: number | null;
      hourly_limit: number;
    }>(this.db.tx, `SELECT * FROM app_charge_credits($1, $2, $3)`, [storeId, fn, reference]);
    if (result.outcome === 'forbidden') throw ApiError.forbidden('This needs the "ai" permission on the store');
    if (result.outcome === 'rate_limited')
      throw ApiError.rateLimited(result.hourly_limit, USAGE_WINDOW_SECONDS, result.retry_after ?? USAGE_WINDOW_SECONDS);
    if (result.outcome === 'insufficient') throw ApiError.insufficientCredits(CREDIT_COSTS[fn], result.balance ?? 0);
    return { id: result.charge_id!, storeId, function: fn, amount: CREDIT_COSTS[fn], balance: result.balance! };
  }

  /** Gives the caller's own charge back (a user's or a store key's; the provider failed), once; returns the balance. */
  async refund(charge: CreditCharge): Promise<number> {
    const [row] = await queryRows<{ balance: number | null }>(this.db.tx, `SELECT app_refund_credits($1) AS balance`, [
      charge.id,
    ]);
    if (row.balance === null)
      throw new Error(`charge ${charge.id} could not be refunded (not the caller's, or too old)`);
    return row.balance;
  }

  /** An admin's grant (app_grant_credits checks the role from the database); 404 when there is no such store. */
  async grant(storeId: string, amount: number, reason: string): Promise<number> {
    const [row] = await queryRows<{
      outcome: 'granted' | 'forbidden' | 'not_found' | 'too_large';
      balance: number | null;
    }>(this.db.tx, `SELECT * FROM app_grant_credits($1, $2, $3)`, [storeId, amount, reason]);
    if (row.outcome === 'forbidden') throw ApiError.forbidden('Only admin accounts may do this');
    if (row.outcome === 'not_found') throw ApiError.notFound('Store');
    if (row.outcome === 'too_large')
      throw ApiError.conflict(`The balance would exceed ${MAX_BALANCE.toLocaleString('en-US')} credits`);
    return row.balance!;
  }

  /**
   * Opens a new store's account with the welcome credits, inside the transaction that creates the
   * store (which runs as the request role: the database function does the writing).
   */
  async openAccount(storeId: string): Promise<void> {
    await this.db.tx.query(`SELECT app_open_credit_account($1)`, [storeId]);
  }

  /**
   * Balance, per-function usage of the last hour and a page of the ledger, newest first (in the request transaction,
   * under RLS).
   */
  async overview(storeId: string, limit: number, cursor: string | undefined): Promise<CreditsOverview> {
    const manager = this.db.tx;
    const [account] = await queryRows<{ balance: number }>(
      manager,
      `SELECT balance FROM credit_accounts WHERE store_id = $1`,
      [storeId],
    );
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
      AI_FUNCTION_NAMES.map((fn) => [
        fn,
        { used_last_hour: used.find((row) => row.function === fn)?.used ?? 0, limit: this.limits[fn] },
      ]),
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
}
