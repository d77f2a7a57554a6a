import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner } from '@app/core';

/**
 * Customer search (`GET /stores/{id}/customers?q=`) that does not read the whole store: trigram
 * indexes on name and e-mail (pg_trgm, shipped with PostgreSQL and trusted, so the owner role may
 * install it).
 *
 * Row-level security would keep a request from using them: ILIKE is not leakproof, so PostgreSQL
 * applies it only after the policies, row by row, never as an index condition. The search therefore
 * runs in a narrow definer function, as the system role (whose policy lets the index work), after the
 * function's own check that the caller holds `customers` in the store (or is the admin), the same rule
 * as the `customers_manage` policy. It answers ids only, one page of them; the repository reads the
 * rows themselves under the request's policies.
 */
export class CustomerSearch1763801500200 implements MigrationInterface {
  name = 'CustomerSearch1763801500200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`);
    await db.query(`CREATE INDEX customers_search_idx ON customers USING gin (name gin_trgm_ops, email gin_trgm_ops)`);
    // Planned at each call with its values (EXECUTE): a rare pattern takes the trigram index, a common
    // one the store's page index, which stops after one page.
    await db.query(`
      CREATE FUNCTION app_search_customers(p_store uuid, p_pattern text, p_before_created timestamptz, p_before_id uuid, p_limit integer)
      RETURNS SETOF uuid LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
      BEGIN
        IF NOT (app_role() = 'admin' OR p_store = ANY (app_store_ids_with('customers'))) THEN
          RETURN;
        END IF;
        RETURN QUERY EXECUTE
          'SELECT c.id FROM customers c
            WHERE c.store_id = $1 AND (c.name ILIKE $2 OR c.email ILIKE $2)
              AND ($3::timestamptz IS NULL OR (c.created_at, c.id) < ($3, $4))
            ORDER BY c.created_at DESC, c.id DESC LIMIT $5'
          USING p_store, p_pattern, p_before_created, p_before_id, least(p_limit, 101);
      END $$`);
    await handOverDefiner(db, 'app_search_customers(uuid, text, timestamptz, uuid, integer)');
  }

  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, ['app_search_customers(uuid, text, timestamptz, uuid, integer)']);
    await db.query(`DROP INDEX customers_search_idx`);
  }
}
