-- Social posts and their results: staff holding `social`.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

CREATE OR REPLACE FUNCTION app_sandbox_post(p_platform_post_id text) RETURNS TABLE(text text, published_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        SELECT p.content->>'text', r.published_at
          FROM social_post_results r JOIN social_posts p ON p.id = r.post_id
         WHERE r.platform_post_id = p_platform_post_id AND r.status = 'published'
         LIMIT 1
      $$;
REVOKE ALL ON FUNCTION app_sandbox_post(p_platform_post_id text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_sandbox_post(p_platform_post_id text) TO storefront_rls;

RESET ROLE;

ALTER TABLE social_posts ENABLE ROW LEVEL SECURITY;
ALTER TABLE social_posts FORCE ROW LEVEL SECURITY;
ALTER TABLE social_post_results ENABLE ROW LEVEL SECURITY;
ALTER TABLE social_post_results FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE social_post_results FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE social_post_results TO storefront_system;
GRANT SELECT, INSERT, UPDATE ON TABLE social_post_results TO storefront_rls;

REVOKE ALL ON TABLE social_posts FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE social_posts TO storefront_system;
GRANT SELECT, INSERT, UPDATE ON TABLE social_posts TO storefront_rls;

DROP POLICY IF EXISTS social_post_results_manage ON social_post_results;
CREATE POLICY social_post_results_manage ON social_post_results TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[]))
  WITH CHECK (
    ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[]))
    AND (EXISTS (SELECT 1 FROM social_posts p WHERE (p.id = social_post_results.post_id AND p.store_id = social_post_results.store_id)))
  );

DROP POLICY IF EXISTS social_post_results_system ON social_post_results;
CREATE POLICY social_post_results_system ON social_post_results TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS social_posts_author ON social_posts;
CREATE POLICY social_posts_author ON social_posts AS RESTRICTIVE FOR INSERT TO storefront_rls
  WITH CHECK (
    (NOT (created_by IS DISTINCT FROM (SELECT app_user_id())))
    AND (NOT (api_key_id IS DISTINCT FROM (SELECT app_api_key_id())))
  );

DROP POLICY IF EXISTS social_posts_manage ON social_posts;
CREATE POLICY social_posts_manage ON social_posts TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[]))
  WITH CHECK (
    (SELECT app_role()) = 'admin'
    OR store_id = ANY ((SELECT app_store_ids_with('social'))::uuid[])
  );

DROP POLICY IF EXISTS social_posts_system ON social_posts;
CREATE POLICY social_posts_system ON social_posts TO storefront_system
  USING (true)
  WITH CHECK (true);
