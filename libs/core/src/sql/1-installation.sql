-- The private schema and the installation row (the request-binding key, the billing settings):
-- only the system role and the definer functions reach them.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

REVOKE ALL ON TABLE storefront_private.installation FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT ON TABLE storefront_private.installation TO storefront_system;
GRANT UPDATE (welcome_credits, ai_hourly_limits, ai_credit_costs) ON TABLE storefront_private.installation TO storefront_system;

GRANT USAGE ON SCHEMA storefront_private TO storefront_system;
