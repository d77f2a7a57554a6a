import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { StoreNotFound } from '../../store.errors.js';
import { StoreRepository } from '../../store.repository.js';
import { toStoreView, type StoreView } from '../../store.js';
import { UpdateStoreCommand } from './update-store.command.js';

@CommandHandler(UpdateStoreCommand)
export class UpdateStoreHandler implements ICommandHandler<UpdateStoreCommand> {
  constructor(private readonly stores: StoreRepository) {}

  async execute({ storeId, fields }: UpdateStoreCommand): Promise<StoreView> {
    const store = await this.stores.update(storeId, fields);
    if (!store) throw new StoreNotFound();
    return toStoreView(store);
  }
}
