import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { StoreRepository } from '../../store.repository.js';
import { toStoreView, type StoreView } from '../../store.js';
import { OpenCreditAccountCommand } from '../open-credit-account.command.js';
import { CreateStoreCommand } from './create-store.command.js';

@CommandHandler(CreateStoreCommand)
export class CreateStoreHandler implements ICommandHandler<CreateStoreCommand> {
  constructor(
    private readonly stores: StoreRepository,
    private readonly commands: CommandBus,
  ) {}

  async execute({ ownerId, fields }: CreateStoreCommand): Promise<StoreView> {
    const store = await this.stores.insert(ownerId, fields);
    // Same transaction: a store never exists without its welcome credits.
    await this.commands.execute(new OpenCreditAccountCommand(store.id));
    return toStoreView(store);
  }
}
