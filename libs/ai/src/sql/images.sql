-- AI images (covers): staff holding `ai` store PNGs; app_cover serves one by id.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

CREATE OR REPLACE FUNCTION app_cover(p_id uuid) RETURNS TABLE(content_type text, bytes bytea)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        SELECT i.content_type, i.bytes FROM ai_images i WHERE i.id = p_id
      $$;
REVOKE ALL ON FUNCTION app_cover(p_id uuid) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_cover(p_id uuid) TO storefront_rls;

RESET ROLE;

ALTER TABLE ai_images ENABLE ROW LEVEL SECURITY;
ALTER TABLE ai_images FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE ai_images FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE ai_images TO storefront_system;
GRANT INSERT ON TABLE ai_images TO storefront_rls;

DROP POLICY IF EXISTS ai_images_create ON ai_images;
CREATE POLICY ai_images_create ON ai_images FOR INSERT TO storefront_rls
  WITH CHECK ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('ai'))::uuid[]));

DROP POLICY IF EXISTS ai_images_system ON ai_images;
CREATE POLICY ai_images_system ON ai_images TO storefront_system
  USING (true)
  WITH CHECK (true);
