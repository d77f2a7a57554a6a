import { Query } from '@nestjs/cqrs';
import type { ProductView } from '../../product.js';

export class GetProductQuery extends Query<ProductView> {
  constructor(readonly productId: string) {
    super();
  }
}
