import { AdjustInventoryHandler } from './adjust-inventory/adjust-inventory.handler.js';
import { CreateProductHandler } from './create-product/create-product.handler.js';
import { DeleteProductHandler } from './delete-product/delete-product.handler.js';
import { UpdateProductHandler } from './update-product/update-product.handler.js';

export const ProductCommandHandlers = [
  CreateProductHandler,
  UpdateProductHandler,
  DeleteProductHandler,
  AdjustInventoryHandler,
];
