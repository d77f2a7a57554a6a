import type { StoreAccess } from '../access/store-access.js';
import type { ProductEventData } from '../events/commerce-events.js';

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

export interface ProductView {
  id: string;
  store_id: string;
  name: string;
  description: string | null;
  price: number;
  compare_price: number | null;
  category: string | null;
  seo_keywords: string[];
  status: ProductStatus;
  inventory_quantity: number;
  created_at: string;
  updated_at: string;
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
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
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

export const PRODUCT_EXAMPLE: ProductView = {
  id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  store_id: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  name: 'Linen tote bag',
  description: 'Natural linen, 40 × 35 cm, inside pocket.',
  price: 24.9,
  compare_price: 29.9,
  category: 'Bags',
  seo_keywords: ['linen tote', 'canvas bag', 'eco bag'],
  status: 'active',
  inventory_quantity: 42,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};
