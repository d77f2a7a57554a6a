import { Command } from '@nestjs/cqrs';

/**
 * Opens a new store's AI credit account with the welcome credits, in the transaction that creates
 * the store. Billing handles it: commerce cannot depend on billing (billing guards its routes with
 * commerce's store access), so the store side only asks.
 */
export class OpenCreditAccountCommand extends Command<void> {
  constructor(readonly storeId: string) {
    super();
  }
}
