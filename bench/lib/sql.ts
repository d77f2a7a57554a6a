/**
 * The API's product page statement (ProductRepository.pageOfStore), for the baseline server and the
 * growth scenario's EXPLAIN: $1 store, $2 status, $3 category, $4 text pattern, $5/$6 the cursor's
 * created_at and id, $7 the page size + 1, $8 active products only.
 */
export const PRODUCT_PAGE_SQL = `SELECT * FROM products
  WHERE store_id = $1
    AND ($2::text IS NULL OR status = $2)
    AND ($3::text IS NULL OR category = $3)
    AND ($4::text IS NULL OR name ILIKE $4 OR description ILIKE $4)
    AND ($5::timestamptz IS NULL OR (created_at, id) < ($5::timestamptz, $6::uuid))
    AND (NOT $8::boolean OR status = 'active')
  ORDER BY created_at DESC, id DESC
  LIMIT $7`;
