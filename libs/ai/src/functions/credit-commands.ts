import { Command } from '@nestjs/cqrs';

/**
 * What the AI functions ask of billing. Billing handles both: it reads the functions' prices and
 * hourly maxima from this lib (`AI_FUNCTIONS`), so this lib cannot depend on billing and only asks,
 * as commerce asks for a new store's welcome credits (`OpenCreditAccountCommand`).
 */

/** What a charge took: the ledger entry to refund if the provider fails. */
export interface CreditCharge {
  id: string;
  storeId: string;
  /** The AI function's name. */
  function: string;
  amount: number;
  /** The store's balance after the charge. */
  balance: number;
}

/**
 * Takes the function's price from the store, atomically with its hourly maximum, as the caller (a user
 * or a store key, who must hold `ai` on the store): 429 RATE_LIMITED or 402 INSUFFICIENT_CREDITS, charging nothing.
 */
export class ChargeCreditsCommand extends Command<CreditCharge> {
  constructor(
    readonly storeId: string,
    readonly fn: string,
    /** The ledger's reference: the request id. */
    readonly reference: string | null,
  ) {
    super();
  }
}

/** Gives the caller's own charge back, once (the provider failed); executes to the new balance. */
export class RefundCreditsCommand extends Command<number> {
  constructor(readonly charge: CreditCharge) {
    super();
  }
}
