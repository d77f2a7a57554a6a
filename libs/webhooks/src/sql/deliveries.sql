-- Webhook deliveries and their attempts: staff holding `webhooks` read them (and retry a delivery).

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhook_deliveries FORCE ROW LEVEL SECURITY;
ALTER TABLE webhook_attempts ENABLE ROW LEVEL SECURITY;
ALTER TABLE webhook_attempts FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE webhook_attempts FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE webhook_attempts TO storefront_system;
GRANT SELECT ON TABLE webhook_attempts TO storefront_rls;

REVOKE ALL ON TABLE webhook_deliveries FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE webhook_deliveries TO storefront_system;
GRANT SELECT, INSERT ON TABLE webhook_deliveries TO storefront_rls;
GRANT UPDATE (status, next_attempt_at, updated_at) ON TABLE webhook_deliveries TO storefront_rls;

GRANT SELECT,USAGE ON SEQUENCE webhook_attempts_id_seq TO storefront_system;

DROP POLICY IF EXISTS webhook_attempts_read ON webhook_attempts;
CREATE POLICY webhook_attempts_read ON webhook_attempts FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]));

DROP POLICY IF EXISTS webhook_attempts_system ON webhook_attempts;
CREATE POLICY webhook_attempts_system ON webhook_attempts TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS webhook_deliveries_manage ON webhook_deliveries;
CREATE POLICY webhook_deliveries_manage ON webhook_deliveries TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]))
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]))
    AND (EXISTS (SELECT 1 FROM webhooks w WHERE (w.id = webhook_deliveries.webhook_id AND w.store_id = webhook_deliveries.store_id)))
  );

DROP POLICY IF EXISTS webhook_deliveries_system ON webhook_deliveries;
CREATE POLICY webhook_deliveries_system ON webhook_deliveries TO storefront_system
  USING (true)
  WITH CHECK (true);
