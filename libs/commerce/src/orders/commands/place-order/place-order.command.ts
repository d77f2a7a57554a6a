import { Command } from '@nestjs/cqrs';
import type { StoreAccess } from '@app/core';
import type { OrderView } from '../../order.js';

export class PlaceOrderCommand extends Command<OrderView> {
  constructor(
    readonly storeId: string,
    /** How the caller relates to the store (StoreAccessGuard). */
    readonly access: StoreAccess,
    /** The signed-in user placing it; null for a store key. */
    readonly userId: string | null,
    readonly customerId: string | undefined,
    readonly items: readonly { product_id: string; quantity: number }[],
  ) {
    super();
  }
}
