import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ApiError } from '@app/core';
import { ProductRepository } from '../../product.repository.js';
import { toProductView, type ProductView } from '../../product.js';
import { GetProductQuery } from './get-product.query.js';

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery> {
  constructor(private readonly products: ProductRepository) {}

  async execute({ productId }: GetProductQuery): Promise<ProductView> {
    const product = await this.products.findVisible(productId);
    if (!product) throw ApiError.notFound('Product');
    return toProductView(product);
  }
}
