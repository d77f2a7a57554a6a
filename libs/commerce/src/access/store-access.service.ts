import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UserPrincipal } from '@app/core';
import { PERMISSIONS, type Permission, type StoreAccess } from './store-access.js';

/** Records that belong to a store and are addressed by their own id in routes. */
export type StoreResource = 'product' | 'customer' | 'order' | 'webhook' | 'social_account' | 'social_post';

const LOCATE: Record<StoreResource, string> = {
  product: 'SELECT store_id, NULL::uuid AS owner_user_id FROM products WHERE id = $1',
  customer: 'SELECT store_id, user_id AS owner_user_id FROM customers WHERE id = $1',
  order: 'SELECT o.store_id, c.user_id AS owner_user_id FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.id = $1',
  webhook: 'SELECT store_id, NULL::uuid AS owner_user_id FROM webhooks WHERE id = $1',
  social_account: 'SELECT store_id, NULL::uuid AS owner_user_id FROM social_accounts WHERE id = $1',
  social_post: 'SELECT store_id, NULL::uuid AS owner_user_id FROM social_posts WHERE id = $1',
};

/** Resolves how a user relates to a store, outside row-level security (guards run before the request transaction). */
@Injectable()
export class StoreAccessService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The store (and, for customer-owned records, the owning user) of a product, customer or order;
   * null when there is no such record.
   */
  async locate(resource: StoreResource, id: string): Promise<{ storeId: string; ownerUserId: string | null } | null> {
    const rows: { store_id: string; owner_user_id: string | null }[] = await this.dataSource.query(LOCATE[resource], [id]);
    return rows[0] ? { storeId: rows[0].store_id, ownerUserId: rows[0].owner_user_id } : null;
  }

  /** The caller's access to the store, or null when the store does not exist or is not theirs to see. */
  async resolve(principal: UserPrincipal, storeId: string): Promise<StoreAccess | null> {
    const rows: { owner_id: string; permissions: Permission[] | null; customer_store: string | null }[] = await this.dataSource.query(
      `SELECT s.owner_id, m.permissions,
              (SELECT u.store_id FROM users u WHERE u.id = $2 AND u.role = 'customer') AS customer_store
         FROM stores s
         LEFT JOIN store_members m ON m.store_id = s.id AND m.user_id = $2 AND m.status = 'active'
        WHERE s.id = $1`,
      [storeId, principal.userId],
    );
    const row = rows[0];
    if (!row) return null;
    if (principal.role === 'admin') return { storeId, relation: 'admin', permissions: PERMISSIONS };
    if (row.owner_id === principal.userId) return { storeId, relation: 'owner', permissions: PERMISSIONS };
    if (row.permissions) return { storeId, relation: 'member', permissions: row.permissions };
    if (row.customer_store === storeId) return { storeId, relation: 'customer', permissions: [] };
    return null;
  }

  /** The caller's one store (owned, joined as an active member, or its customer store); null with none or several. */
  async onlyStoreOf(userId: string): Promise<string | null> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM stores WHERE owner_id = $1
        UNION SELECT store_id FROM store_members WHERE user_id = $1 AND status = 'active'
        UNION SELECT store_id FROM users WHERE id = $1 AND role = 'customer' AND store_id IS NOT NULL
        LIMIT 2`,
      [userId],
    );
    return rows.length === 1 ? rows[0].id : null;
  }
}
