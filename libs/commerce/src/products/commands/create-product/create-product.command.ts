import { Command } from '@nestjs/cqrs';
import type { CreateProductDto } from '../../product.dto.js';
import type { ProductView } from '../../product.js';

export class CreateProductCommand extends Command<ProductView> {
  constructor(
    readonly storeId: string,
    readonly fields: CreateProductDto,
  ) {
    super();
  }
}
