import { Injectable } from '@nestjs/common';
import { containsPattern, type Cursor, queryRows, TenantDb } from '@app/core';
import type { ProductRow, ProductStatus } from './product.js';

export interface ProductFields {
  name?: string;
  description?: string | null;
  price?: number;
  compare_price?: number | null;
  category?: string | null;
  seo_keywords?: string[];
  status?: ProductStatus;
  inventory_quantity?: number;
}

export interface ProductFilter {
  status?: ProductStatus;
  category?: string;
  q?: string;
  /** Active products only, on top of `status` (so `status: 'draft'` then finds nothing). */
  activeOnly?: boolean;
}

/** A stock move that happened: the quantity before and after. */
export interface StockMove {
  previous_quantity: number;
  quantity: number;
}

@Injectable()
export class ProductRepository {
  constructor(private readonly db: TenantDb) {}

  async insert(storeId: string, fields: ProductFields & { name: string; price: number }): Promise<ProductRow> {
    const rows = await queryRows<ProductRow>(
      this.db.tx,
      `INSERT INTO products (store_id, name, description, price, compare_price, category, seo_keywords, status,
        inventory_quantity)
       VALUES ($1, $2, $3, $4, $5, $6, coalesce($7, '{}'::text[]), coalesce($8, 'draft'), coalesce($9, 0))
       RETURNING *`,
      [
        storeId,
        fields.name,
        fields.description ?? null,
        fields.price,
        fields.compare_price ?? null,
        fields.category ?? null,
        fields.seo_keywords ?? null,
        fields.status ?? null,
        fields.inventory_quantity ?? null,
      ],
    );
    return rows[0];
  }

  /** The product, locked for the rest of the transaction; null when not visible. */
  async findForUpdate(id: string): Promise<ProductRow | null> {
    return (
      (await queryRows<ProductRow>(this.db.tx, 'SELECT * FROM products WHERE id = $1 FOR UPDATE', [id]))[0] ?? null
    );
  }

  async findVisible(id: string): Promise<ProductRow | null> {
    return (await queryRows<ProductRow>(this.db.tx, 'SELECT * FROM products WHERE id = $1', [id]))[0] ?? null;
  }

  async findManyVisible(ids: string[]): Promise<ProductRow[]> {
    return queryRows<ProductRow>(this.db.tx, 'SELECT * FROM products WHERE id = ANY ($1::uuid[])', [ids]);
  }

  async pageOfStore(
    storeId: string,
    filter: ProductFilter,
    limit: number,
    after: Cursor | null,
  ): Promise<ProductRow[]> {
    return queryRows<ProductRow>(
      this.db.tx,
      `SELECT * FROM products
        WHERE store_id = $1
          AND ($2::text IS NULL OR status = $2)
          AND ($3::text IS NULL OR category = $3)
          AND ($4::text IS NULL OR name ILIKE $4 OR description ILIKE $4)
          AND ($5::timestamptz IS NULL OR (created_at, id) < ($5::timestamptz, $6::uuid))
          AND (NOT $8::boolean OR status = 'active')
        ORDER BY created_at DESC, id DESC
        LIMIT $7`,
      [
        storeId,
        filter.status ?? null,
        filter.category ?? null,
        filter.q ? containsPattern(filter.q) : null,
        after?.createdAt ?? null,
        after?.id ?? null,
        limit + 1,
        filter.activeOnly ?? false,
      ],
    );
  }

  /** Applies the given fields (stock excluded) and returns the row after the change. */
  async update(id: string, fields: ProductFields): Promise<ProductRow> {
    const set = (
      ['name', 'description', 'price', 'compare_price', 'category', 'seo_keywords', 'status'] as const
    ).filter((key) => fields[key] !== undefined);
    const assignments = set.map((key, index) => `${key} = $${index + 2}`);
    const rows = await queryRows<ProductRow>(
      this.db.tx,
      `UPDATE products SET ${[...assignments, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
      [id, ...set.map((key) => fields[key])],
    );
    return rows[0];
  }

  async delete(id: string): Promise<void> {
    await queryRows(this.db.tx, 'DELETE FROM products WHERE id = $1', [id]);
  }

  /**
   * Moves stock by `delta`, atomically and never below zero (app_move_stock); null when the move
   * would go below zero, the product is not visible, or `activeOnly` and it is not active.
   */
  async moveStock(id: string, delta: number, activeOnly = false): Promise<StockMove | null> {
    const rows = await queryRows<StockMove>(this.db.tx, 'SELECT * FROM app_move_stock($1, $2, $3)', [
      id,
      delta,
      activeOnly,
    ]);
    return rows[0] ?? null;
  }
}
