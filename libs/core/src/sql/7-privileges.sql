-- What tables, sequences and functions made later get by default (the migrations create them as the
-- owner role): nothing for requests, the system role's read and write, no EXECUTE for PUBLIC.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

ALTER DEFAULT PRIVILEGES FOR ROLE storefront_owner IN SCHEMA public GRANT SELECT, USAGE ON SEQUENCES TO storefront_system;
ALTER DEFAULT PRIVILEGES FOR ROLE storefront_owner IN SCHEMA public GRANT SELECT, INSERT, DELETE, UPDATE ON TABLES TO storefront_system;
ALTER DEFAULT PRIVILEGES FOR ROLE storefront_owner REVOKE ALL ON FUNCTIONS FROM PUBLIC;
