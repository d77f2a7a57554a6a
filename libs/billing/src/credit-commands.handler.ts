import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ChargeCreditsCommand, RefundCreditsCommand, type CreditCharge } from '@app/ai';
import { isAiFunction } from './credit-costs.js';
import { CreditsService } from './credits.service.js';

/** An AI function's charge, at its listed price, atomically with its hourly maximum. */
@CommandHandler(ChargeCreditsCommand)
export class ChargeCreditsHandler implements ICommandHandler<ChargeCreditsCommand> {
  constructor(private readonly credits: CreditsService) {}

  async execute({ storeId, fn, reference }: ChargeCreditsCommand): Promise<CreditCharge> {
    if (!isAiFunction(fn)) throw new Error(`${fn} is not an AI function`);
    return this.credits.charge(storeId, fn, reference);
  }
}

/** The refund of a charge whose provider call failed. */
@CommandHandler(RefundCreditsCommand)
export class RefundCreditsHandler implements ICommandHandler<RefundCreditsCommand> {
  constructor(private readonly credits: CreditsService) {}

  async execute({ charge }: RefundCreditsCommand): Promise<number> {
    return this.credits.refund(charge);
  }
}
