-- Idempotency keys: a caller's own rows only, keyed by (caller, key).

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE idempotency_keys FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE idempotency_keys TO storefront_system;
GRANT SELECT, INSERT, DELETE ON TABLE idempotency_keys TO storefront_rls;
GRANT UPDATE (route, fingerprint, state, created_at, response_status, response_headers, response_body) ON TABLE idempotency_keys TO storefront_rls;

DROP POLICY IF EXISTS idempotency_keys_own ON idempotency_keys;
CREATE POLICY idempotency_keys_own ON idempotency_keys TO storefront_rls
  USING (
    (user_id = (SELECT app_user_id()) AND (caller = ('user:' || (SELECT app_user_id()))))
    OR (user_id = (SELECT app_api_key_id()) AND (caller = ('api_key:' || (SELECT app_api_key_id()))))
  )
  WITH CHECK (
    (user_id = (SELECT app_user_id()) AND (caller = ('user:' || (SELECT app_user_id()))))
    OR (user_id = (SELECT app_api_key_id()) AND (caller = ('api_key:' || (SELECT app_api_key_id()))))
  );

DROP POLICY IF EXISTS idempotency_keys_system ON idempotency_keys;
CREATE POLICY idempotency_keys_system ON idempotency_keys TO storefront_system
  USING (true)
  WITH CHECK (true);
