import { Query } from '@nestjs/cqrs';
import type { ProductView } from '../../product.js';

export class GetProductQuery extends Query<ProductView> {
  constructor(
    readonly productId: string,
    /** Drafts and archived products answer 404, as if they did not exist (`seesActiveProductsOnly`). */
    readonly activeOnly = false,
  ) {
    super();
  }
}
