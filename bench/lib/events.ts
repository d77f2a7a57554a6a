import type pg from 'pg';

/**
 * Commits `count` `product.updated` events of a store in one statement, straight in the outbox (as the
 * app writes them; the relay hears of each at commit). Answers their ids, in order.
 */
export async function commitStoreEvents(db: pg.Pool, storeId: string, count: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO outbox_events (store_id, event, data)
     SELECT $1, 'product.updated', jsonb_build_object('product_id', gen_random_uuid(), 'n', n)
       FROM generate_series(1, $2) AS n
     ORDER BY n
     RETURNING id`,
    [storeId, count],
  );
  return rows.map((row) => row.id);
}
