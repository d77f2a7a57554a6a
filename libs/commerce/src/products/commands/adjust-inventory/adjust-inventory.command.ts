import { Command } from '@nestjs/cqrs';
import type { ProductView } from '../../product.js';

export class AdjustInventoryCommand extends Command<ProductView> {
  constructor(
    readonly productId: string,
    readonly change: { delta?: number; quantity?: number },
    readonly reason: string | null,
  ) {
    super();
  }
}
