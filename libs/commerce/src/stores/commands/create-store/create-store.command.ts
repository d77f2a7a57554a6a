import { Command } from '@nestjs/cqrs';
import type { StoreFields } from '../../store.repository.js';
import type { StoreView } from '../../store.js';

export class CreateStoreCommand extends Command<StoreView> {
  constructor(
    readonly ownerId: string,
    readonly fields: StoreFields & { name: string },
  ) {
    super();
  }
}
