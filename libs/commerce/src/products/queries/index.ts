import { GetProductHandler } from './get-product/get-product.handler.js';
import { ListProductsHandler } from './list-products/list-products.handler.js';

export const ProductQueryHandlers = [GetProductHandler, ListProductsHandler];
