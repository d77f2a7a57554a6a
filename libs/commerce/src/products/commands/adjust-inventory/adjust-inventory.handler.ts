import { HttpStatus } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError, OutboxService } from '@app/core';
import type { InventoryEventData } from '../../../events/commerce-events.js';
import { ProductRepository } from '../../product.repository.js';
import { MAX_STOCK, toProductView, type ProductView } from '../../product.js';
import { AdjustInventoryCommand } from './adjust-inventory.command.js';

/** Stock by `delta` or to an absolute `quantity`; never below zero (409 OUT_OF_STOCK), safe under concurrency. */
@CommandHandler(AdjustInventoryCommand)
export class AdjustInventoryHandler implements ICommandHandler<AdjustInventoryCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ productId, change, reason }: AdjustInventoryCommand): Promise<ProductView> {
    if ((change.delta === undefined) === (change.quantity === undefined)) {
      throw ApiError.validation([{ field: 'delta', message: 'give exactly one of delta or quantity' }]);
    }
    // The row lock makes an absolute quantity a delta against a value no one else can change meanwhile.
    const current = await this.products.findForUpdate(productId);
    if (!current) throw ApiError.notFound('Product');
    const delta = change.delta ?? change.quantity! - current.inventory_quantity;
    const moved = await this.products.moveStock(productId, delta);
    if (!moved && delta > 0) {
      throw ApiError.conflict(`Stock cannot exceed ${MAX_STOCK}: ${current.inventory_quantity} in stock, adding ${delta}`, {
        product_id: productId,
        available: current.inventory_quantity,
        requested_delta: delta,
      });
    }
    if (!moved) {
      throw new ApiError(HttpStatus.CONFLICT, 'OUT_OF_STOCK', `Only ${current.inventory_quantity} in stock: cannot remove ${-delta}`, {
        product_id: productId,
        available: current.inventory_quantity,
        requested_delta: delta,
      });
    }
    if (delta !== 0) {
      const data: InventoryEventData = {
        product_id: productId,
        previous_quantity: moved.previous_quantity,
        quantity: moved.quantity,
        delta,
        reason,
      };
      await this.outbox.append(current.store_id, 'inventory.updated', data);
    }
    return toProductView((await this.products.findVisible(productId))!);
  }
}
