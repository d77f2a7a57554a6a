import type { MigrationInterface, QueryRunner } from 'typeorm';
import { REQUEST_ROLE } from '@app/core';

const ADMIN = `(SELECT app_role()) = 'admin'`;
const HOLDING_ORDERS = `(${ADMIN} OR store_id = ANY ((SELECT app_store_ids_with('orders'))::uuid[]))`;
const MANAGED = `(${ADMIN} OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))`;
/**
 * The item's order is of the item's store and is being placed: inserted in this transaction and not
 * yet past taking its stock. Every committed order has taken its stock (app_check_order at commit), so
 * no other transaction ever finds its order open.
 */
const OPEN_ORDER = `EXISTS (SELECT 1 FROM orders o WHERE o.id = order_items.order_id AND o.store_id = order_items.store_id
  AND o.status = 'pending' AND NOT o.stock_taken AND o.xmin = pg_current_xact_id()::xid)`;
/** The columns an invitation names; never its user, status or acceptance (app_accept_invitation writes those). */
const INVITATION_COLUMNS = 'store_id, email, permissions, invite_token_hash, invite_link_hash, invite_expires_at, invited_by';

/**
 * Two holes a request's own SQL could reach. An order's items could be added after it was placed (its
 * total and stock checked only at the commit that inserted it); now a request adds items only while
 * placing the order. An owner could insert an active membership for any user; now a request inserts
 * invitations only, and a membership becomes active only through app_accept_invitation.
 */
export class ClosedOrdersAndInvitations1763802800000 implements MigrationInterface {
  name = 'ClosedOrdersAndInvitations1763802800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP POLICY order_items_manage ON order_items`);
    await db.query(`CREATE POLICY order_items_manage ON order_items FOR ALL TO ${REQUEST_ROLE}
      USING ${HOLDING_ORDERS} WITH CHECK (${HOLDING_ORDERS} AND ${OPEN_ORDER})`);
    await db.query(`DROP POLICY order_items_customer_place ON order_items`);
    await db.query(`CREATE POLICY order_items_customer_place ON order_items FOR INSERT TO ${REQUEST_ROLE} WITH CHECK (${OPEN_ORDER})`);

    await db.query(`REVOKE INSERT ON store_members FROM ${REQUEST_ROLE}`);
    await db.query(`GRANT INSERT (${INVITATION_COLUMNS}) ON store_members TO ${REQUEST_ROLE}`);
    await db.query(`DROP POLICY store_members_manage ON store_members`);
    await db.query(`CREATE POLICY store_members_invite ON store_members FOR INSERT TO ${REQUEST_ROLE}
      WITH CHECK (${MANAGED} AND status = 'invited' AND user_id IS NULL AND accepted_at IS NULL)`);
    await db.query(
      `CREATE POLICY store_members_change ON store_members FOR UPDATE TO ${REQUEST_ROLE} USING ${MANAGED} WITH CHECK ${MANAGED}`,
    );
    await db.query(`CREATE POLICY store_members_remove ON store_members FOR DELETE TO ${REQUEST_ROLE} USING ${MANAGED}`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const policy of ['store_members_invite', 'store_members_change', 'store_members_remove']) {
      await db.query(`DROP POLICY ${policy} ON store_members`);
    }
    await db.query(`CREATE POLICY store_members_manage ON store_members FOR ALL TO ${REQUEST_ROLE} USING ${MANAGED} WITH CHECK ${MANAGED}`);
    await db.query(`REVOKE INSERT (${INVITATION_COLUMNS}) ON store_members FROM ${REQUEST_ROLE}`);
    await db.query(`GRANT INSERT ON store_members TO ${REQUEST_ROLE}`);
    const sameStore = `EXISTS (SELECT 1 FROM orders o WHERE o.id = order_items.order_id AND o.store_id = order_items.store_id)`;
    await db.query(
      `ALTER POLICY order_items_manage ON order_items USING ${HOLDING_ORDERS} WITH CHECK (${HOLDING_ORDERS} AND ${sameStore})`,
    );
    await db.query(`ALTER POLICY order_items_customer_place ON order_items WITH CHECK (EXISTS (SELECT 1 FROM orders o
      WHERE o.id = order_items.order_id AND o.store_id = order_items.store_id AND o.status = 'pending'))`);
  }
}
