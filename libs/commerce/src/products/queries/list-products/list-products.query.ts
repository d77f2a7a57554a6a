import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { ListProductsQuery as ListProductsParams } from '../../product.dto.js';
import type { ProductView } from '../../product.js';

export class ListProductsQuery extends Query<Page<ProductView>> {
  constructor(
    readonly storeId: string,
    readonly params: ListProductsParams,
    /** Only active products, whatever `params.status` asks for (`seesActiveProductsOnly`). */
    readonly activeOnly = false,
  ) {
    super();
  }
}
