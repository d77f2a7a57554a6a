import { ApiProperty } from '@nestjs/swagger';
import type { StoreAccess } from '@app/core';
import type { ProductEventData } from '../events/commerce-events.js';
import { isoTimestamp } from '@app/core';

/**
 * The most stock a product can hold; stock moves beyond it are refused, not overflowed. The database
 * holds the same bound in app_move_stock and app_return_order_stock (commerce/sql/).
 */
export const MAX_STOCK = 1_000_000_000;

export const PRODUCT_STATUSES = ['draft', 'active', 'archived'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/**
 * Whether the caller may see only active products. Drafts and archived products are the catalog's
 * work: customers (row-level security hides them too) and members without `catalog` do not see
 * them; owners, admins and members with `catalog` see every product.
 */
export function seesActiveProductsOnly(access: StoreAccess): boolean {
  return access.relation === 'customer' || (access.relation === 'member' && !access.permissions.includes('catalog'));
}

export interface ProductRow {
  id: string;
  store_id: string;
  name: string;
  description: string | null;
  price: string;
  compare_price: string | null;
  category: string | null;
  seo_keywords: string[];
  status: ProductStatus;
  inventory_quantity: number;
  created_at: Date;
  updated_at: Date;
}

const ISO_EXAMPLE = '2026-11-22T10:00:00.000Z';

/** A product as the API returns it; the class documents it in the OpenAPI document (`ProductView`). */
export class ProductView {
  @ApiProperty({ format: 'uuid', example: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d' })
  id!: string;
  @ApiProperty({ format: 'uuid', example: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11' })
  store_id!: string;
  @ApiProperty({ example: 'Linen tote bag' })
  name!: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'Natural linen, 40 × 35 cm, inside pocket.' })
  description!: string | null;
  @ApiProperty({ description: 'In the store currency, at most 2 decimals', example: 24.9 })
  price!: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    description: 'Price before discount; `null` when none',
    example: 29.9,
  })
  compare_price!: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'Bags' })
  category!: string | null;
  @ApiProperty({ type: [String], example: ['linen tote', 'canvas bag', 'eco bag'] })
  seo_keywords!: string[];
  @ApiProperty({ enum: PRODUCT_STATUSES, description: 'Only active products can be ordered', example: 'active' })
  status!: ProductStatus;
  @ApiProperty({ type: 'integer', description: 'Units in stock', example: 42 })
  inventory_quantity!: number;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  created_at!: string;
  @ApiProperty({ format: 'date-time', example: ISO_EXAMPLE })
  updated_at!: string;
}

/** NUMERIC arrives from PostgreSQL as a string; at two decimals it is exact as a JSON number. */
export const money = (value: string | null): number | null => (value === null ? null : Number(value));

export function toProductView(row: ProductRow): ProductView {
  return {
    id: row.id,
    store_id: row.store_id,
    name: row.name,
    description: row.description,
    price: Number(row.price),
    compare_price: money(row.compare_price),
    category: row.category,
    seo_keywords: row.seo_keywords,
    status: row.status,
    inventory_quantity: row.inventory_quantity,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function productEventData(row: ProductRow): ProductEventData {
  return {
    product_id: row.id,
    name: row.name,
    price: Number(row.price),
    compare_price: money(row.compare_price),
    category: row.category,
    status: row.status,
    inventory_quantity: row.inventory_quantity,
  };
}
