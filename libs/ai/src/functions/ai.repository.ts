import { Injectable } from '@nestjs/common';
import { queryRows, TenantDb } from '@app/core';

/** A product as a social post is written about it, with its store's currency and time zone. */
export interface ProductForPost {
  name: string;
  description: string | null;
  price: number;
  category: string | null;
  seo_keywords: string[];
  /** ISO 4217. */
  currency: string;
  /** IANA time zone of the store. */
  timezone: string;
}

/** What the AI functions read of the store, as the calling user (row-level security applies). */
@Injectable()
export class AiRepository {
  constructor(private readonly db: TenantDb) {}

  /** The store's currency; null when the caller cannot see the store. */
  async storeCurrency(storeId: string): Promise<string | null> {
    const [store] = await queryRows<{ currency: string }>(this.db.tx, `SELECT currency FROM stores WHERE id = $1`, [
      storeId,
    ]);
    return store ? store.currency.trim() : null;
  }

  /** A product of the store; null when there is none the caller can see. */
  async productForPost(productId: string, storeId: string): Promise<ProductForPost | null> {
    const [product] = await queryRows<Omit<ProductForPost, 'price'> & { price: string }>(
      this.db.tx,
      `SELECT p.name, p.description, p.price, p.category, p.seo_keywords, s.currency, s.timezone
         FROM products p JOIN stores s ON s.id = p.store_id
        WHERE p.id = $1 AND p.store_id = $2`,
      [productId, storeId],
    );
    if (!product) return null;
    return {
      ...product,
      price: Number(product.price),
      currency: product.currency.trim(),
      seo_keywords: product.seo_keywords ?? [],
    };
  }
}
