import { Command } from '@nestjs/cqrs';
import type { UpdateProductDto } from '../../product.dto.js';
import type { ProductView } from '../../product.js';

export class UpdateProductCommand extends Command<ProductView> {
  constructor(
    readonly productId: string,
    readonly fields: UpdateProductDto,
  ) {
    super();
  }
}
