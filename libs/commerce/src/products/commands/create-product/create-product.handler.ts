import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OutboxService } from '@app/core';
import { ProductRepository } from '../../product.repository.js';
import { productEventData, toProductView, type ProductView } from '../../product.js';
import { CreateProductCommand } from './create-product.command.js';

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly outbox: OutboxService,
  ) {}

  async execute({ storeId, fields }: CreateProductCommand): Promise<ProductView> {
    const product = await this.products.insert(storeId, fields);
    await this.outbox.append(storeId, 'product.created', productEventData(product));
    return toProductView(product);
  }
}
