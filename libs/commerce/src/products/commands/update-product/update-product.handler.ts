import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { InvalidFields } from '../../../commerce-error.js';
import { NULLABLE_PRODUCT_FIELDS } from '../../product.dto.js';
import { checkProductUpdate } from '../../product-changes.js';
import { ProductNotFound } from '../../product.errors.js';
import { ProductRepository } from '../../product.repository.js';
import { productEventData, toProductView, type ProductView } from '../../product.js';
import { UpdateProductCommand } from './update-product.command.js';

@CommandHandler(UpdateProductCommand)
export class UpdateProductHandler implements ICommandHandler<UpdateProductCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ productId, fields }: UpdateProductCommand): Promise<ProductView> {
    const cleared = Object.entries(fields)
      .filter(([key, value]) => value === null && !(NULLABLE_PRODUCT_FIELDS as readonly string[]).includes(key))
      .map(([field]) => ({ field, message: `${field} cannot be null` }));
    if (cleared.length > 0) throw new InvalidFields(cleared);
    const current = await this.products.findForUpdate(productId);
    if (!current) throw new ProductNotFound();
    checkProductUpdate(current, fields);
    const product = await this.products.update(productId, fields);
    await this.outbox.append(product.store_id, 'product.updated', productEventData(product));
    return toProductView(product);
  }
}
