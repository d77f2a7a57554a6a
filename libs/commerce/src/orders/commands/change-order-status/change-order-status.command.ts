import { Command } from '@nestjs/cqrs';
import type { StoreAccess } from '@app/core';
import type { OrderStatus } from '../../order-status.js';
import type { OrderView } from '../../order.js';

export class ChangeOrderStatusCommand extends Command<OrderView> {
  constructor(
    readonly orderId: string,
    /** How the caller relates to the order's store (StoreAccessGuard). */
    readonly access: StoreAccess,
    readonly status: OrderStatus,
  ) {
    super();
  }
}
