import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { ProductRepository } from '../../product.repository.js';
import { toProductView, type ProductView } from '../../product.js';
import { ListProductsQuery } from './list-products.query.js';

/** Staff see every product of the store; customers (by row-level security) the active ones. */
@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery> {
  constructor(private readonly products: ProductRepository) {}

  async execute({ storeId, params }: ListProductsQuery): Promise<Page<ProductView>> {
    const rows = await this.products.pageOfStore(storeId, params, params.limit, decodeCursor(params.cursor));
    return toPage(rows, params.limit, toProductView);
  }
}
