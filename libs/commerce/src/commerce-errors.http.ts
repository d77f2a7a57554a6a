import { HttpStatus } from '@nestjs/common';
import { ApiError, type DomainErrorMapping } from '@app/core';
import type { ApiKeyError } from './api-keys/api-key.errors.js';
import type { InvalidFields } from './commerce-error.js';
import type { CustomerError } from './customers/customer.errors.js';
import type { MemberError } from './members/member.errors.js';
import type { OrderError } from './orders/order.errors.js';
import type { ProductError } from './products/product.errors.js';
import type { StoreError } from './stores/store.errors.js';

/** Every refusal of commerce's rules. */
export type CommerceRefusal =
  InvalidFields | OrderError | ProductError | CustomerError | MemberError | StoreError | ApiKeyError;

/**
 * The HTTP answer to each of commerce's refusals: status, the envelope's code, message (the error's)
 * and details. The one place a commerce error meets HTTP; CommerceModule registers it at start.
 */
export function commerceErrorAnswer(error: CommerceRefusal): ApiError {
  switch (error.kind) {
    case 'invalid_fields':
      return ApiError.validation(error.fields);
    case 'order_not_found':
    case 'order_customer_not_found':
    case 'product_not_found':
    case 'customer_not_found':
    case 'member_not_found':
    case 'store_not_found':
    case 'api_key_not_found':
      // "<Record> not found", as ApiError.notFound says it
      return new ApiError(HttpStatus.NOT_FOUND, 'NOT_FOUND', error.message);
    case 'order_forbidden':
      return ApiError.forbidden(error.message);
    case 'invalid_order_transition':
      return new ApiError(HttpStatus.CONFLICT, 'INVALID_TRANSITION', error.message, {
        from: error.from,
        to: error.to,
        allowed: [...error.allowed],
      });
    case 'order_total_too_large':
      return ApiError.unprocessable(error.message);
    case 'products_not_orderable':
      return ApiError.unprocessable(
        error.message,
        error.refused.map(({ index, product_id }) => ({
          field: `items.${index}.product_id`,
          product_id,
          message: 'is not an active product of this store',
        })),
      );
    case 'order_out_of_stock':
      return new ApiError(HttpStatus.CONFLICT, 'OUT_OF_STOCK', error.message, [...error.short]);
    case 'inventory_out_of_stock':
      return new ApiError(HttpStatus.CONFLICT, 'OUT_OF_STOCK', error.message, { ...error.move });
    case 'stock_limit_exceeded':
      return ApiError.conflict(error.message, { ...error.move });
    case 'customer_email_taken':
    case 'member_already_invited':
    case 'live_api_key_limit_reached':
      return ApiError.conflict(error.message);
  }
}

export const COMMERCE_ERROR_ANSWERS: DomainErrorMapping<CommerceRefusal> = {
  context: 'commerce',
  answer: commerceErrorAnswer,
};
