-- The transactional outbox: events appended in the change's transaction, read and acknowledged by the
-- system (the relay), announced by NOTIFY.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- NOTIFY is delivered at commit and dropped on rollback: the relay hears of committed events only.
CREATE OR REPLACE FUNCTION outbox_events_notify() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        PERFORM pg_notify('outbox_events', NEW.id::text);
        RETURN NULL;
      END $$;

ALTER TABLE outbox_owed_acks ENABLE ROW LEVEL SECURITY;
ALTER TABLE outbox_owed_acks FORCE ROW LEVEL SECURITY;
ALTER TABLE outbox_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE outbox_events FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE outbox_events FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE outbox_events TO storefront_system;
GRANT INSERT ON TABLE outbox_events TO storefront_rls;
GRANT SELECT (id, store_id, event, data, created_at) ON TABLE outbox_events TO storefront_rls;

REVOKE ALL ON TABLE outbox_owed_acks FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE outbox_owed_acks TO storefront_system;

DROP POLICY IF EXISTS outbox_events_actor ON outbox_events;
CREATE POLICY outbox_events_actor ON outbox_events AS RESTRICTIVE FOR INSERT TO storefront_rls
  WITH CHECK (NOT (actor IS DISTINCT FROM (SELECT app_actor())));

DROP POLICY IF EXISTS outbox_events_append ON outbox_events;
CREATE POLICY outbox_events_append ON outbox_events FOR INSERT TO storefront_rls
  WITH CHECK (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_staff_store_ids())::uuid[])
    OR (event = ANY (ARRAY['order.created', 'order.updated', 'order.cancelled', 'inventory.updated', 'customer.created', 'customer.updated']) AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))
  );

DROP POLICY IF EXISTS outbox_events_read ON outbox_events;
CREATE POLICY outbox_events_read ON outbox_events FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('webhooks'))::uuid[]));

DROP POLICY IF EXISTS outbox_events_system ON outbox_events;
CREATE POLICY outbox_events_system ON outbox_events TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS outbox_owed_acks_system ON outbox_owed_acks;
CREATE POLICY outbox_owed_acks_system ON outbox_owed_acks TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP TRIGGER IF EXISTS outbox_events_notify ON outbox_events;
CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION outbox_events_notify();
