import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OpenCreditAccountCommand } from '@app/commerce';
import { CreditsService } from './credits.service.js';

/** The welcome grant of a new store (commerce asks, in its creating transaction). */
@CommandHandler(OpenCreditAccountCommand)
export class OpenCreditAccountHandler implements ICommandHandler<OpenCreditAccountCommand> {
  constructor(private readonly credits: CreditsService) {}

  async execute({ storeId }: OpenCreditAccountCommand): Promise<void> {
    await this.credits.openAccount(storeId);
  }
}
