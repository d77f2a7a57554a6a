import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { ProductNotFound } from '../../product.errors.js';
import { ProductRepository } from '../../product.repository.js';
import { productEventData } from '../../product.js';
import { DeleteProductCommand } from './delete-product.command.js';

/** Deletes the product; orders keep their items' names and prices (their product_id becomes null). */
@CommandHandler(DeleteProductCommand)
export class DeleteProductHandler implements ICommandHandler<DeleteProductCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ productId }: DeleteProductCommand): Promise<void> {
    const product = await this.products.findForUpdate(productId);
    if (!product) throw new ProductNotFound();
    await this.products.delete(productId);
    await this.outbox.append(product.store_id, 'product.deleted', productEventData(product));
  }
}
