import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { StoreRepository } from '../../store.repository.js';
import { toStoreView, type StoreView } from '../../store.js';
import { CreateStoreCommand } from './create-store.command.js';

@CommandHandler(CreateStoreCommand)
export class CreateStoreHandler implements ICommandHandler<CreateStoreCommand> {
  constructor(private readonly stores: StoreRepository) {}

  async execute({ ownerId, fields }: CreateStoreCommand): Promise<StoreView> {
    return toStoreView(await this.stores.insert(ownerId, fields));
  }
}
