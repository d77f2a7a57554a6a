import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { ProductRepository } from '../../product.repository.js';
import { toProductView, type ProductView } from '../../product.js';
import { GetProductQuery } from './get-product.query.js';

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery> {
  constructor(private readonly products: ProductRepository) {}

  async execute({ productId, activeOnly }: GetProductQuery): Promise<ProductView> {
    const product = await this.products.findVisible(productId);
    // A hidden product answers exactly like a missing one: the caller learns nothing of it.
    if (!product || (activeOnly && product.status !== 'active')) throw ApiError.notFound('Product');
    return toProductView(product);
  }
}
