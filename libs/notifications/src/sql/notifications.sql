-- Merchant notifications: staff holding `webhooks` read them.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER TABLE merchant_notifications ENABLE ROW LEVEL SECURITY;
ALTER TABLE merchant_notifications FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE merchant_notifications FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE merchant_notifications TO storefront_system;
GRANT SELECT ON TABLE merchant_notifications TO storefront_rls;

DROP POLICY IF EXISTS merchant_notifications_read ON merchant_notifications;
CREATE POLICY merchant_notifications_read ON merchant_notifications FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]));

DROP POLICY IF EXISTS merchant_notifications_system ON merchant_notifications;
CREATE POLICY merchant_notifications_system ON merchant_notifications TO storefront_system
  USING (true)
  WITH CHECK (true);
