import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { InvalidFields } from '../../../commerce-error.js';
import { NULLABLE_PRODUCT_FIELDS } from '../../product.dto.js';
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
    if (fields.inventory_quantity !== undefined) {
      throw new InvalidFields([
        { field: 'inventory_quantity', message: 'change stock with POST /functions/v1/products/{product_id}/inventory' },
      ]);
    }
    // compare_price must stay at or above the price the product will have after this change.
    const price = fields.price ?? Number(current.price);
    const compare =
      fields.compare_price !== undefined ? fields.compare_price : current.compare_price === null ? null : Number(current.compare_price);
    if (compare !== null && compare < price) {
      throw new InvalidFields([{ field: 'compare_price', message: 'compare_price must be greater than or equal to price' }]);
    }
    const product = await this.products.update(productId, fields);
    await this.outbox.append(product.store_id, 'product.updated', productEventData(product));
    return toProductView(product);
  }
}
