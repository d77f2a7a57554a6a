-- Store API keys: their owners read (never the secret's hash), create and revoke them.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- last_used_at, to the minute: one write a minute per key at most, never waiting on a lock.
CREATE OR REPLACE FUNCTION app_touch_api_key(p_hash text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
      BEGIN
        IF p_hash IS NULL OR p_hash !~ '^[0-9a-f]{64}$' THEN
          RETURN false;
        END IF;
        UPDATE store_api_keys SET last_used_at = now()
         WHERE id = (SELECT a.id FROM store_api_keys a
                      WHERE a.secret_hash = decode(p_hash, 'hex') AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())
                        AND (a.last_used_at IS NULL OR a.last_used_at < now() - interval '1 minute')
                      FOR UPDATE SKIP LOCKED);
        RETURN FOUND;
      END $_$;
REVOKE ALL ON FUNCTION app_touch_api_key(p_hash text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_touch_api_key(p_hash text) TO storefront_rls;

RESET ROLE;

ALTER TABLE store_api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE store_api_keys FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE store_api_keys FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE store_api_keys TO storefront_system;
GRANT SELECT (id, store_id, name, prefix, permissions, created_by, created_at, expires_at, last_used_at, revoked_at) ON TABLE store_api_keys TO storefront_rls;
GRANT INSERT (store_id, name, prefix, secret_hash, permissions, created_by, expires_at) ON TABLE store_api_keys TO storefront_rls;
GRANT UPDATE (revoked_at) ON TABLE store_api_keys TO storefront_rls;

DROP POLICY IF EXISTS store_api_keys_create ON store_api_keys;
CREATE POLICY store_api_keys_create ON store_api_keys FOR INSERT TO storefront_rls
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
    AND created_by = (SELECT app_user_id())
  );

DROP POLICY IF EXISTS store_api_keys_read ON store_api_keys;
CREATE POLICY store_api_keys_read ON store_api_keys FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]));

DROP POLICY IF EXISTS store_api_keys_revoke ON store_api_keys;
CREATE POLICY store_api_keys_revoke ON store_api_keys FOR UPDATE TO storefront_rls
  USING (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
    AND revoked_at IS NULL
  )
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
    AND revoked_at IS NOT NULL
  );

DROP POLICY IF EXISTS store_api_keys_system ON store_api_keys;
CREATE POLICY store_api_keys_system ON store_api_keys TO storefront_system
  USING (true)
  WITH CHECK (true);
