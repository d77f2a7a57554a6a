-- Stores: read where the caller has access; created by merchants as themselves; changed and deleted
-- by their owner.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER TABLE stores ENABLE ROW LEVEL SECURITY;
ALTER TABLE stores FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE stores FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE stores TO storefront_system;
GRANT SELECT, INSERT, DELETE ON TABLE stores TO storefront_rls;
GRANT UPDATE (name, currency, default_language, timezone, updated_at) ON TABLE stores TO storefront_rls;

DROP POLICY IF EXISTS stores_change ON stores;
CREATE POLICY stores_change ON stores FOR UPDATE TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR owner_id = (SELECT app_user_id()))
  WITH CHECK ((SELECT app_role()) = 'admin' OR owner_id = (SELECT app_user_id()));

DROP POLICY IF EXISTS stores_create ON stores;
CREATE POLICY stores_create ON stores FOR INSERT TO storefront_rls
  WITH CHECK (owner_id = (SELECT app_user_id()) AND (SELECT app_role()) = ANY (ARRAY['merchant', 'admin']));

DROP POLICY IF EXISTS stores_delete ON stores;
CREATE POLICY stores_delete ON stores FOR DELETE TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR owner_id = (SELECT app_user_id()));

DROP POLICY IF EXISTS stores_read ON stores;
CREATE POLICY stores_read ON stores FOR SELECT TO storefront_rls
  USING (
    (SELECT app_role()) = 'admin'
    OR owner_id = (SELECT app_user_id())
    OR id = ANY ((SELECT app_accessible_store_ids())::uuid[])
  );

DROP POLICY IF EXISTS stores_system ON stores;
CREATE POLICY stores_system ON stores TO storefront_system
  USING (true)
  WITH CHECK (true);
