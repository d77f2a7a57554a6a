import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { checkStockChange, stockDelta, stockMoved } from '../../inventory.js';
import { ProductNotFound } from '../../product.errors.js';
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
    checkStockChange(change);
    // The row lock makes an absolute quantity a delta against a value no one else can change meanwhile.
    const current = await this.products.findForUpdate(productId);
    if (!current) throw new ProductNotFound();
    const delta = stockDelta(current.inventory_quantity, change);
    const moved = await this.products.moveStock(productId, delta);
    const events = stockMoved(productId, current.inventory_quantity, delta, moved, reason, MAX_STOCK);
    await this.outbox.appendAll(current.store_id, events);
    return toProductView((await this.products.findVisible(productId))!);
  }
}
