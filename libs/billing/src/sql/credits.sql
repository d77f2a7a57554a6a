-- Credits: an account per store and an append-only ledger; balances move only through these
-- definer functions (grants, charges within the hourly maximum, refunds of recent charges).

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- The charge of a caller holding `ai` on the store, atomically with the function's hourly maximum
-- and the balance. Prices and maxima are the installation's (written by every process at start from
-- the functions' own declarations), so the caller names no price. Records who is charged: the bound
-- store key beside the user (`api_key_id`), else the user alone.
CREATE OR REPLACE FUNCTION app_charge_credits(p_store uuid, p_function text, p_reference text) RETURNS TABLE(outcome text, charge_id uuid, balance integer, used integer, retry_after double precision, hourly_limit integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        price integer := (SELECT (i.ai_credit_costs ->> p_function)::integer
      FROM storefront_private.installation i);
        p_limit integer := (SELECT (i.ai_hourly_limits ->> p_function)::integer
      FROM storefront_private.installation i);
        current integer;
      BEGIN
        hourly_limit := p_limit;
        IF price IS NULL OR p_limit IS NULL THEN
          RAISE EXCEPTION 'not an AI function: %', p_function USING ERRCODE = '22023';
        END IF;
        IF NOT (app_role() = 'admin' OR p_store = ANY (app_store_ids_with('ai'))) THEN
          outcome := 'forbidden';
          RETURN NEXT;
          RETURN;
        END IF;
        
  SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, 0) ON CONFLICT DO NOTHING;
    SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  END IF;
        balance := current;
        SELECT count(*)::int,
               EXTRACT(EPOCH FROM min(c.created_at) + make_interval(secs => 3600)
                                  - clock_timestamp())::float8
          INTO used, retry_after
          FROM credit_ledger c
         WHERE c.store_id = p_store AND c.kind = 'charge' AND c.function = p_function
           AND c.created_at > clock_timestamp() - make_interval(secs => 3600)
           AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.refund_of = c.id);
        IF used >= p_limit THEN
          outcome := 'rate_limited';
          RETURN NEXT;
          RETURN;
        END IF;
        IF current < price THEN
          outcome := 'insufficient';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO credit_ledger (store_id, kind, amount, function, reference, created_by, api_key_id)
        VALUES (p_store, 'charge', -price, p_function, p_reference, app_user_id(), app_api_key_id())
        RETURNING id INTO charge_id;
        UPDATE credit_accounts a SET balance = a.balance - price, updated_at = clock_timestamp()
         WHERE a.store_id = p_store RETURNING a.balance INTO current;
        outcome := 'charged';
        balance := current;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION app_charge_credits(p_store uuid, p_function text, p_reference text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_charge_credits(p_store uuid, p_function text, p_reference text) TO storefront_rls;

CREATE OR REPLACE FUNCTION app_grant_credits(p_store uuid, p_amount integer, p_reason text) RETURNS TABLE(outcome text, balance integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        current integer;
      BEGIN
        IF app_role() IS DISTINCT FROM 'admin' THEN
          outcome := 'forbidden';
          RETURN NEXT;
          RETURN;
        END IF;
        IF p_amount IS NULL OR p_amount < 1 OR p_amount > 1000000 THEN
          RAISE EXCEPTION 'a grant is 1 to 1000000 credits' USING ERRCODE = '22023';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store) THEN
          outcome := 'not_found';
          RETURN NEXT;
          RETURN;
        END IF;
        
  SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, 0) ON CONFLICT DO NOTHING;
    SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  END IF;
        IF current::bigint + p_amount > 2000000000 THEN
          outcome := 'too_large';
          balance := current;
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO credit_ledger (store_id, kind, amount, reference, created_by) VALUES (p_store, 'grant', p_amount, p_reason, app_user_id());
        UPDATE credit_accounts a SET balance = a.balance + p_amount, updated_at = clock_timestamp()
         WHERE a.store_id = p_store RETURNING a.balance INTO current;
        outcome := 'granted';
        balance := current;
        RETURN NEXT;
      END $$;
REVOKE ALL ON FUNCTION app_grant_credits(p_store uuid, p_amount integer, p_reason text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_grant_credits(p_store uuid, p_amount integer, p_reason text) TO storefront_rls;

-- The welcome grant, from the transaction that creates the store (which runs as storefront_rls):
-- opens the account once, for its owner; a store that has one already gets nothing.
CREATE OR REPLACE FUNCTION app_open_credit_account(p_store uuid) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        amount integer := (SELECT i.welcome_credits FROM storefront_private.installation i);
      BEGIN
        IF app_role() IS DISTINCT FROM 'admin' AND NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store AND s.owner_id = app_user_id()) THEN
          RAISE EXCEPTION 'only the store owner opens its credit account' USING ERRCODE = '42501';
        END IF;
        INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, coalesce(amount, 0)) ON CONFLICT (store_id) DO NOTHING;
        IF FOUND AND amount > 0 THEN
          INSERT INTO credit_ledger (store_id, kind, amount, reference) VALUES (p_store, 'grant', amount, 'welcome');
        END IF;
      END $$;
REVOKE ALL ON FUNCTION app_open_credit_account(p_store uuid) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_open_credit_account(p_store uuid) TO storefront_rls;

-- `app_refund_credits`: only the caller's own charge, within 15 minutes, once.
CREATE OR REPLACE FUNCTION app_refund_credits(p_charge uuid) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        charge record;
        current integer;
        p_store uuid;
      BEGIN
        SELECT c.id, c.store_id, c.amount, c.function INTO charge FROM credit_ledger c
         WHERE c.id = p_charge AND c.kind = 'charge' AND (c.created_by = app_user_id() OR c.api_key_id = app_api_key_id())
           AND c.created_at > clock_timestamp() - interval '15 minutes';
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        p_store := charge.store_id;
        
  SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, 0) ON CONFLICT DO NOTHING;
    SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  END IF;
        INSERT INTO credit_ledger (store_id, kind, amount, function, refund_of)
        VALUES (p_store, 'refund', -charge.amount, charge.function, charge.id)
        ON CONFLICT (refund_of) DO NOTHING;
        IF FOUND THEN
          UPDATE credit_accounts a SET balance = a.balance - charge.amount, updated_at = clock_timestamp()
           WHERE a.store_id = p_store RETURNING a.balance INTO current;
        END IF;
        RETURN current;
      END $$;
REVOKE ALL ON FUNCTION app_refund_credits(p_charge uuid) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_refund_credits(p_charge uuid) TO storefront_rls;

RESET ROLE;

CREATE OR REPLACE FUNCTION credit_ledger_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RAISE EXCEPTION 'credit_ledger is append-only';
      END $$;

ALTER TABLE credit_ledger ENABLE ROW LEVEL SECURITY;
ALTER TABLE credit_ledger FORCE ROW LEVEL SECURITY;
ALTER TABLE credit_accounts ENABLE ROW LEVEL SECURITY;
ALTER TABLE credit_accounts FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE credit_accounts FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE credit_accounts TO storefront_system;
GRANT SELECT ON TABLE credit_accounts TO storefront_rls;

REVOKE ALL ON TABLE credit_ledger FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE credit_ledger TO storefront_system;
GRANT SELECT ON TABLE credit_ledger TO storefront_rls;

DROP POLICY IF EXISTS credit_accounts_read ON credit_accounts;
CREATE POLICY credit_accounts_read ON credit_accounts FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('billing'))::uuid[]));

DROP POLICY IF EXISTS credit_accounts_system ON credit_accounts;
CREATE POLICY credit_accounts_system ON credit_accounts TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS credit_ledger_read ON credit_ledger;
CREATE POLICY credit_ledger_read ON credit_ledger FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_store_ids_with('billing'))::uuid[]));

DROP POLICY IF EXISTS credit_ledger_system ON credit_ledger;
CREATE POLICY credit_ledger_system ON credit_ledger TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP TRIGGER IF EXISTS credit_ledger_append_only ON credit_ledger;
CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE ON credit_ledger FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only();
