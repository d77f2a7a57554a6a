import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { ProductRepository } from '../../product.repository.js';
import { toProductView, type ProductView } from '../../product.js';
import { ListProductsQuery } from './list-products.query.js';

/**
 * Owners, admins and members with `catalog` see every product of the store; customers (also by
 * row-level security) and other members the active ones.
 */
@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery> {
  constructor(private readonly products: ProductRepository) {}

  async execute({ storeId, params, activeOnly }: ListProductsQuery): Promise<Page<ProductView>> {
    const filter = { status: params.status, category: params.category, q: params.q, activeOnly };
    const rows = await this.products.pageOfStore(storeId, filter, params.limit, decodeCursor(params.cursor));
    return toPage(rows, params.limit, toProductView);
  }
}
