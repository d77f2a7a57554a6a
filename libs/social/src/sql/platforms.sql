-- The registry's platforms: written by the service at start; nothing for requests.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER TABLE social_platforms ENABLE ROW LEVEL SECURITY;
ALTER TABLE social_platforms FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE social_platforms FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT ON TABLE social_platforms TO storefront_system;
GRANT UPDATE (display_name) ON TABLE social_platforms TO storefront_system;

DROP POLICY IF EXISTS social_platforms_system ON social_platforms;
CREATE POLICY social_platforms_system ON social_platforms TO storefront_system
  USING (true)
  WITH CHECK (true);
