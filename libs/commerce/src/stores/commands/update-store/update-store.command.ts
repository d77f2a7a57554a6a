import { Command } from '@nestjs/cqrs';
import type { StoreFields } from '../../store.repository.js';
import type { StoreView } from '../../store.js';

export class UpdateStoreCommand extends Command<StoreView> {
  constructor(
    readonly storeId: string,
    readonly fields: StoreFields,
  ) {
    super();
  }
}
