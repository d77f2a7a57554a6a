import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsUUID,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '@app/core';
import { ORDER_STATUSES, type OrderStatus } from './order-status.js';

export const MAX_ORDER_ITEMS = 100;
export const MAX_ITEM_QUANTITY = 10_000;

/** What makes two items the same product: UUIDs compare without regard to case. */
function productKey(item: unknown): unknown {
  const id = (item as { product_id?: unknown } | null)?.product_id;
  return typeof id === 'string' ? id.toLowerCase() : id;
}

export class OrderItemDto {
  @ApiProperty({
    description: 'An active product of the store',
    format: 'uuid',
    example: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  })
  @IsUUID()
  product_id: string;

  @ApiProperty({
    type: 'integer',
    description: `Units, 1 to ${MAX_ITEM_QUANTITY.toLocaleString('en')}`,
    example: 3,
    minimum: 1,
    maximum: MAX_ITEM_QUANTITY,
  })
  @IsInt()
  @Min(1)
  @Max(MAX_ITEM_QUANTITY)
  quantity: number;
}

/** Prices and totals come from the catalog: an item carrying `price` (or any other field) is refused. */
export class PlaceOrderDto {
  @ApiPropertyOptional({
    description:
      "Staff: the store's customer the order is for (omit for an order " +
      'without a customer). Customers: omit, or their own customer id.',
    format: 'uuid',
    example: '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98',
  })
  @IsOptional()
  @IsUUID()
  customer_id?: string;

  @ApiProperty({
    description: `1 to ${MAX_ORDER_ITEMS} items, each product at most once`,
    type: [OrderItemDto],
    example: [{ product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', quantity: 3 }],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ORDER_ITEMS)
  @ArrayUnique(productKey, { message: 'items must not repeat a product_id' })
  @ValidateNested({ each: true })
  @Type(() => OrderItemDto)
  items: OrderItemDto[];
}

export class UpdateOrderDto {
  @ApiProperty({
    description: 'The new status; see the status machine in the route description',
    enum: ORDER_STATUSES,
    example: 'paid',
  })
  @IsIn(ORDER_STATUSES)
  status: OrderStatus;
}

export class ListOrdersQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only orders in this status', enum: ORDER_STATUSES, example: 'paid' })
  @IsOptional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;
}
