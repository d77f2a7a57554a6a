import type { CreditCharge } from '@app/ai';
import type { AiFunction } from './credit-costs.js';

export type LedgerKind = 'grant' | 'charge' | 'refund';

/** A ledger entry as `GET /functions/v1/credits` answers it. */
export interface LedgerEntryView {
  id: string;
  kind: LedgerKind;
  /** Signed: grants and refunds add (> 0), charges take (< 0); the entries of a store sum to its balance. */
  amount: number;
  /** The AI function charged or refunded; null for grants. */
  function: AiFunction | null;
  /** A grant's reason, a charge's request id, or the id of the charge a refund returns. */
  reference: string | null;
  created_at: string;
}

export interface LedgerRow {
  id: string;
  kind: LedgerKind;
  amount: number;
  function: AiFunction | null;
  reference: string | null;
  refund_of: string | null;
  created_at: Date;
}

export function toLedgerEntryView(row: LedgerRow): LedgerEntryView {
  return {
    id: row.id,
    kind: row.kind,
    amount: row.amount,
    function: row.function,
    reference: row.kind === 'refund' ? row.refund_of : row.reference,
    created_at: row.created_at.toISOString(),
  };
}

/** What a successful charge took: the ledger entry to refund if the provider fails. */
export interface Charge extends CreditCharge {
  function: AiFunction;
}

export const LEDGER_ENTRY_EXAMPLE: LedgerEntryView = {
  id: '6f1d2c1e-3b1a-4c43-9d7e-2f5a8b9c0d11',
  kind: 'charge',
  amount: -5,
  function: 'generate-blog-autopilot',
  reference: 'req-4f6c1a',
  created_at: '2026-11-22T10:15:00.000Z',
};
