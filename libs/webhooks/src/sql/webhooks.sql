-- Webhooks: staff holding `webhooks` manage their store's.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER TABLE webhooks ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhooks FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE webhooks FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE webhooks TO storefront_system;
GRANT SELECT, INSERT, DELETE ON TABLE webhooks TO storefront_rls;
GRANT UPDATE (url, events, status, disabled_reason, secret_sealed, secret_hint, previous_secret_sealed, previous_secret_expires_at, updated_at) ON TABLE webhooks TO storefront_rls;

DROP POLICY IF EXISTS webhooks_manage ON webhooks;
CREATE POLICY webhooks_manage ON webhooks TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]))
  WITH CHECK (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[])
  );

DROP POLICY IF EXISTS webhooks_system ON webhooks;
CREATE POLICY webhooks_system ON webhooks TO storefront_system
  USING (true)
  WITH CHECK (true);
