import type { CreditCharge } from '@app/ai';
import { ApiProperty } from '@nestjs/swagger';
import { AI_FUNCTION_NAMES, type AiFunction } from './credit-costs.js';
import { isoTimestamp } from '@app/core';

export const LEDGER_KINDS = ['grant', 'charge', 'refund'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** A ledger entry as `GET /functions/v1/credits` answers it; the class documents it (`LedgerEntryView`). */
export class LedgerEntryView {
  @ApiProperty({ format: 'uuid', example: '6f1d2c1e-3b1a-4c43-9d7e-2f5a8b9c0d11' })
  id!: string;
  @ApiProperty({ enum: LEDGER_KINDS, example: 'charge' })
  kind!: LedgerKind;
  @ApiProperty({
    type: 'integer',
    description: "Signed: grants and refunds add (> 0), charges take (< 0); a store's entries sum to its balance",
    example: -5,
  })
  amount!: number;
  @ApiProperty({
    type: 'string',
    enum: [...AI_FUNCTION_NAMES, null],
    nullable: true,
    description: 'The AI function charged or refunded; `null` for grants',
    example: 'generate-blog-autopilot',
  })
  function!: AiFunction | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "A grant's reason, a charge's request id, or the id of the charge a refund returns",
    example: 'req-4f6c1a',
  })
  reference!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:15:00.000Z' })
  created_at!: string;
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
    created_at: isoTimestamp(row.created_at),
  };
}

/** What a successful charge took: the ledger entry to refund if the provider fails. */
export interface Charge extends CreditCharge {
  function: AiFunction;
}
