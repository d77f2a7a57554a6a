CREATE SCHEMA storefront_private;

ALTER SCHEMA storefront_private OWNER TO storefront_owner;

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';

CREATE FUNCTION public.app_accept_invitation(p_token_hash bytea) RETURNS TABLE(store_id uuid, member_id uuid)
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        UPDATE store_members m
           SET user_id = app_user_id(), status = 'active', accepted_at = now(), updated_at = now(), invite_token_hash = NULL
         WHERE m.invite_token_hash = p_token_hash AND m.status = 'invited' AND m.invite_expires_at > now()
           AND lower(m.email) = (SELECT lower(u.email) FROM users u WHERE u.id = app_user_id() AND u.role = 'team_member')
        RETURNING m.store_id, m.id
      $$;

ALTER FUNCTION public.app_accept_invitation(p_token_hash bytea) OWNER TO storefront_system;

CREATE FUNCTION public.app_accessible_store_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        IF storefront_private.api_key_context_valid() THEN RETURN ARRAY[current_setting('app.api_key_store', true)::uuid]; END IF;
        RETURN '{}';
      END IF;
      RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active'
       UNION SELECT store_id FROM users WHERE id = me AND role = 'customer' AND store_id IS NOT NULL);
    END $$;

ALTER FUNCTION public.app_accessible_store_ids() OWNER TO storefront_system;

CREATE FUNCTION public.app_actor() RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NOT NULL THEN
          RETURN jsonb_build_object('type', 'user', 'id', me);
        END IF;
        IF storefront_private.api_key_context_valid() THEN
          RETURN jsonb_build_object('type', 'api_key', 'id', current_setting('app.api_key_id', true));
        END IF;
        RETURN NULL;
      END $$;

ALTER FUNCTION public.app_actor() OWNER TO storefront_system;

CREATE FUNCTION public.app_api_key_id() RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN storefront_private.api_key_context_valid() THEN current_setting('app.api_key_id', true)::uuid END;
      END $$;

ALTER FUNCTION public.app_api_key_id() OWNER TO storefront_system;

CREATE FUNCTION public.app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) RETURNS TABLE(user_id uuid, email text, role text, store_id uuid, relation text, permissions text[], record_owner uuid, store_count integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        who record;
        target uuid := p_store;
        owner_of_record uuid;
        store_owner uuid;
        member_permissions text[];
        candidates uuid[];
      BEGIN
        PERFORM storefront_private.clean_session();
        SELECT u.id, u.email, u.role, u.store_id INTO who FROM storefront_private.user_of_session(p_session, p_proof) u;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        user_id := who.id;
        email := who.email;
        role := who.role;
        IF p_resource IS NOT NULL THEN
          target := NULL;
          IF p_resource = 'product' THEN SELECT r.store_id INTO target FROM products r WHERE r.id = p_record;
          ELSIF p_resource = 'customer' THEN SELECT r.store_id, r.user_id INTO target, owner_of_record FROM customers r WHERE r.id = p_record;
          ELSIF p_resource = 'order' THEN
            SELECT o.store_id, c.user_id INTO target, owner_of_record FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.id = p_record;
          ELSIF p_resource = 'webhook' THEN SELECT r.store_id INTO target FROM webhooks r WHERE r.id = p_record;
          ELSIF p_resource = 'social_account' THEN SELECT r.store_id INTO target FROM social_accounts r WHERE r.id = p_record;
          ELSIF p_resource = 'social_post' THEN SELECT r.store_id INTO target FROM social_posts r WHERE r.id = p_record;
          END IF;
        ELSIF p_store IS NULL AND p_only_store THEN
          candidates := ARRAY(
            SELECT s.id FROM stores s WHERE s.owner_id = who.id
            UNION SELECT m.store_id FROM store_members m WHERE m.user_id = who.id AND m.status = 'active'
            UNION SELECT who.store_id WHERE who.role = 'customer' AND who.store_id IS NOT NULL
            LIMIT 2);
          store_count := cardinality(candidates);
          IF store_count = 1 THEN target := candidates[1]; END IF;
        END IF;
        IF target IS NOT NULL THEN
          SELECT s.owner_id INTO store_owner FROM stores s WHERE s.id = target;
          IF FOUND THEN
            IF who.role = 'admin' THEN relation := 'admin';
            ELSIF store_owner = who.id THEN relation := 'owner';
            ELSE
              SELECT m.permissions INTO member_permissions FROM store_members m
               WHERE m.store_id = target AND m.user_id = who.id AND m.status = 'active';
              IF FOUND THEN
                relation := 'member';
                permissions := member_permissions;
              ELSIF who.role = 'customer' AND who.store_id = target THEN
                relation := 'customer';
              END IF;
            END IF;
          END IF;
        END IF;
        IF relation IS NOT NULL THEN
          store_id := target;
          record_owner := owner_of_record;
        END IF;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) OWNER TO storefront_system;

CREATE FUNCTION public.app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) RETURNS TABLE(key_id uuid, key_store uuid, permissions text[], store_id uuid, store_count integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
      DECLARE
        k record;
        target uuid := p_store;
      BEGIN
        PERFORM storefront_private.clean_session();
        IF p_hash IS NULL OR p_hash !~ '^[0-9a-f]{64}$' THEN
          RETURN;
        END IF;
        SELECT a.id, a.store_id, a.permissions INTO k FROM store_api_keys a
         WHERE a.secret_hash = decode(p_hash, 'hex') AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now());
        IF NOT FOUND THEN
          RETURN;
        END IF;
        key_id := k.id;
        key_store := k.store_id;
        permissions := k.permissions;
        IF p_resource IS NOT NULL THEN
          target := NULL;
          
  IF p_resource = 'product' THEN SELECT r.store_id INTO target FROM products r WHERE r.id = p_record;
  ELSIF p_resource = 'customer' THEN SELECT r.store_id INTO target FROM customers r WHERE r.id = p_record;
  ELSIF p_resource = 'order' THEN SELECT r.store_id INTO target FROM orders r WHERE r.id = p_record;
  ELSIF p_resource = 'webhook' THEN SELECT r.store_id INTO target FROM webhooks r WHERE r.id = p_record;
  ELSIF p_resource = 'social_account' THEN SELECT r.store_id INTO target FROM social_accounts r WHERE r.id = p_record;
  ELSIF p_resource = 'social_post' THEN SELECT r.store_id INTO target FROM social_posts r WHERE r.id = p_record;
  END IF;
        ELSIF p_store IS NULL AND p_only_store THEN
          target := k.store_id;
          store_count := 1;
        END IF;
        IF target = k.store_id THEN
          store_id := target;
        END IF;
        IF p_bind THEN
          
  PERFORM set_config('app.api_key_id', k.id::text, true), set_config('app.api_key_store', k.store_id::text, true),
          set_config('app.api_key_permissions', array_to_string(k.permissions, ','), true),
          set_config('app.api_key_context', storefront_private.api_key_context_mac(
                       k.id::text, k.store_id::text, array_to_string(k.permissions, ',')), true);
        END IF;
        RETURN NEXT;
      END $_$;

ALTER FUNCTION public.app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) OWNER TO storefront_system;

CREATE FUNCTION public.app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) RETURNS TABLE(user_id uuid, email text, role text, store_id uuid, relation text, permissions text[], record_owner uuid, store_count integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        facts record;
      BEGIN
        -- app_authorize cleans the pooled session first, so the context is set after it, never before.
        SELECT * INTO facts FROM app_authorize(p_session, p_proof, p_store, p_resource, p_record, p_only_store);
        IF NOT FOUND THEN
          RETURN;
        END IF;
        PERFORM set_config('app.user_id', facts.user_id::text, true), set_config('app.role', facts.role, true),
                set_config('app.session_id', p_session::text, true),
                set_config('app.context', storefront_private.context_mac(facts.user_id::text, facts.role, p_session::text), true);
        RETURN QUERY SELECT facts.user_id, facts.email, facts.role, facts.store_id, facts.relation, facts.permissions,
                            facts.record_owner, facts.store_count;
      END $$;

ALTER FUNCTION public.app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) OWNER TO storefront_system;

CREATE FUNCTION public.app_bind_api_key(p_key uuid, p_proof text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        k record;
      BEGIN
        PERFORM storefront_private.clean_session();
        SELECT a.id, a.store_id, a.permissions INTO k FROM store_api_keys a
         WHERE a.id = p_key AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now()) AND p_proof IS NOT NULL
           AND sha256(convert_to(p_proof, 'UTF8'))
             = sha256(convert_to(encode(storefront_private.hmac('api_key:' || p_key::text), 'hex'), 'UTF8'));
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        
  PERFORM set_config('app.api_key_id', k.id::text, true), set_config('app.api_key_store', k.store_id::text, true),
          set_config('app.api_key_permissions', array_to_string(k.permissions, ','), true),
          set_config('app.api_key_context', storefront_private.api_key_context_mac(
                       k.id::text, k.store_id::text, array_to_string(k.permissions, ',')), true);
        RETURN true;
      END $$;

ALTER FUNCTION public.app_bind_api_key(p_key uuid, p_proof text) OWNER TO storefront_system;

CREATE FUNCTION public.app_bind_request(p_session uuid, p_proof text) RETURNS TABLE(user_id uuid, email text, role text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        found_user record;
      BEGIN
        PERFORM storefront_private.clean_session();
        SELECT u.id, u.email, u.role INTO found_user FROM storefront_private.user_of_session(p_session, p_proof) u;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        PERFORM set_config('app.user_id', found_user.id::text, true), set_config('app.role', found_user.role, true),
                set_config('app.session_id', p_session::text, true),
                set_config('app.context', storefront_private.context_mac(found_user.id::text, found_user.role, p_session::text), true);
        user_id := found_user.id;
        email := found_user.email;
        role := found_user.role;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.app_bind_request(p_session uuid, p_proof text) OWNER TO storefront_system;

CREATE FUNCTION public.app_charge_credits(p_store uuid, p_function text, p_reference text) RETURNS TABLE(outcome text, charge_id uuid, balance integer, used integer, retry_after double precision, hourly_limit integer)
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

ALTER FUNCTION public.app_charge_credits(p_store uuid, p_function text, p_reference text) OWNER TO storefront_system;

CREATE FUNCTION public.app_check_order() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        items_total numeric;
        items integer;
      BEGIN
        SELECT coalesce(sum(i.price * i.quantity), 0), count(*) INTO items_total, items FROM order_items i WHERE i.order_id = NEW.id;
        IF items = 0 OR items_total <> NEW.total THEN
          RAISE EXCEPTION 'order % totals % but its items %', NEW.id, NEW.total, items_total USING ERRCODE = '23514';
        END IF;
        IF NOT (SELECT o.stock_taken FROM orders o WHERE o.id = NEW.id) THEN
          RAISE EXCEPTION 'order % did not take its stock', NEW.id USING ERRCODE = '23514';
        END IF;
        RETURN NULL;
      END $$;

ALTER FUNCTION public.app_check_order() OWNER TO storefront_system;

CREATE FUNCTION public.app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        taken record;
        account uuid;
      BEGIN
        IF p_state_hash IS NULL OR p_completion IS NULL THEN
          RETURN NULL;
        END IF;
        DELETE FROM social_connect_states s
         WHERE s.state_hash = p_state_hash
           AND s.taken_at > now() - interval '10 minutes'
           AND s.completion_hash IS NOT NULL
           AND sha256(convert_to(s.completion_hash, 'UTF8')) = sha256(convert_to(encode(sha256(convert_to(p_completion, 'UTF8')), 'hex'), 'UTF8'))
        RETURNING s.store_id, s.platform, s.user_id INTO taken;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        -- Connecting a platform again replaces the store's account for it (new tokens, active again).
        INSERT INTO social_accounts AS a (store_id, platform, platform_account_id, username, display_name,
                access_token_sealed, refresh_token_sealed, token_expires_at, scopes, connected_by)
        VALUES (taken.store_id, taken.platform, p_platform_account_id, p_username, p_display_name,
                p_access_token_sealed, p_refresh_token_sealed, p_token_expires_at, coalesce(p_scopes, '{}'), taken.user_id)
        ON CONFLICT (store_id, platform) DO UPDATE SET
          platform_account_id = excluded.platform_account_id, username = excluded.username, display_name = excluded.display_name,
          access_token_sealed = excluded.access_token_sealed, refresh_token_sealed = excluded.refresh_token_sealed,
          token_expires_at = excluded.token_expires_at, scopes = excluded.scopes, connected_by = excluded.connected_by,
          status = 'active', updated_at = date_trunc('milliseconds', clock_timestamp())
        RETURNING a.id INTO account;
        RETURN account;
      END $$;

ALTER FUNCTION public.app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) OWNER TO storefront_system;

CREATE FUNCTION public.app_context_valid() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        context text := current_setting('app.context', true);
      BEGIN
        IF context IS NULL OR context = '' THEN
          RETURN false;
        END IF;
        RETURN sha256(convert_to(context, 'UTF8'))
             = sha256(convert_to(storefront_private.context_mac(current_setting('app.user_id', true), current_setting('app.role', true),
                                                              current_setting('app.session_id', true)), 'UTF8'));
      END $$;

ALTER FUNCTION public.app_context_valid() OWNER TO storefront_system;

CREATE FUNCTION public.app_cover(p_id uuid) RETURNS TABLE(content_type text, bytes bytea)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        SELECT i.content_type, i.bytes FROM ai_images i WHERE i.id = p_id
      $$;

ALTER FUNCTION public.app_cover(p_id uuid) OWNER TO storefront_system;

CREATE FUNCTION public.app_customer_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        DECLARE
          me uuid := app_user_id();
        BEGIN
          IF me IS NULL THEN
            RETURN '{}';
          END IF;
          RETURN ARRAY(SELECT id FROM customers WHERE user_id = me);
        END $$;

ALTER FUNCTION public.app_customer_ids() OWNER TO storefront_system;

CREATE FUNCTION public.app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        store uuid := p_store;
        store_language text;
        store_title text;
        enabled boolean;
        created uuid;
      BEGIN
        IF NOT storefront_private.ticket_valid('mail', p_template || ':' || lower(p_recipient), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF store IS NULL AND p_user IS NOT NULL THEN
          SELECT u.store_id INTO store FROM users u WHERE u.id = p_user;
        END IF;
        IF store IS NOT NULL THEN
          SELECT s.default_language, s.name INTO store_language, store_title FROM stores s WHERE s.id = store;
        END IF;
        IF p_template = 'team_invitation' THEN
          SELECT m.team_invitation INTO enabled FROM store_mail_settings m WHERE m.store_id = store;
        END IF;
        IF enabled IS FALSE THEN
          RETURN NULL;
        END IF;
        INSERT INTO mail_outbox (template, recipient, store_id, user_id, language, data, secret_sealed)
        VALUES (p_template, p_recipient, store, p_user, coalesce(store_language, 'en'),
                coalesce(p_data, '{}') || CASE WHEN store_title IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('store_name', store_title) END,
                p_secret)
        RETURNING id INTO created;
        RETURN created;
      END $$;

ALTER FUNCTION public.app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.app_grant_credits(p_store uuid, p_amount integer, p_reason text) RETURNS TABLE(outcome text, balance integer)
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

ALTER FUNCTION public.app_grant_credits(p_store uuid, p_amount integer, p_reason text) OWNER TO storefront_system;

CREATE FUNCTION public.app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) RETURNS TABLE(id uuid, store_id uuid, email text, user_id uuid, permissions text[], status text, invite_expires_at timestamp with time zone, accepted_at timestamp with time zone, created_at timestamp with time zone, updated_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      BEGIN
        -- coalesce: a null argument makes the subject null, and that no ticket is valid for.
        IF NOT coalesce(storefront_private.ticket_valid('invite',
             p_store::text || ':' || p_invited_by::text || ':' || p_email || ':' || encode(p_token_hash, 'hex') || ':' || encode(p_link_hash, 'hex'),
             p_ticket), false) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF NOT coalesce(app_role() = 'admin' OR p_store = ANY (app_managed_store_ids()), false) THEN
          RAISE EXCEPTION 'not allowed to invite to this store' USING ERRCODE = '42501';
        END IF;
        RETURN QUERY
          INSERT INTO store_members AS m (store_id, email, permissions, invite_token_hash, invite_link_hash, invite_expires_at, invited_by)
          VALUES (p_store, p_email, p_permissions, p_token_hash, p_link_hash, now() + make_interval(hours => p_ttl_hours), p_invited_by)
          ON CONFLICT (store_id, lower(email)) DO NOTHING
          RETURNING m.id, m.store_id, m.email, m.user_id, m.permissions, m.status, m.invite_expires_at, m.accepted_at, m.created_at, m.updated_at;
      END $$;

ALTER FUNCTION public.app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.app_mail_merchant_notice() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        notice text := CASE NEW.kind WHEN 'webhook.disabled' THEN 'webhook_disabled' WHEN 'social_post_failed' THEN 'social_post_failed' END;
        owner record;
        enabled boolean;
      BEGIN
        IF notice IS NULL THEN
          RETURN NULL;
        END IF;
        SELECT u.id, u.email, s.default_language, s.name INTO owner
          FROM stores s JOIN users u ON u.id = s.owner_id WHERE s.id = NEW.store_id;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        SELECT CASE notice WHEN 'webhook_disabled' THEN m.webhook_disabled ELSE m.social_post_failed END INTO enabled
          FROM store_mail_settings m WHERE m.store_id = NEW.store_id;
        IF enabled IS FALSE THEN
          RETURN NULL;
        END IF;
        INSERT INTO mail_outbox (template, recipient, store_id, user_id, language, data)
        VALUES (notice, owner.email, NEW.store_id, owner.id, owner.default_language,
                NEW.data || jsonb_build_object('message', NEW.message, 'store_name', owner.name, 'notification_id', NEW.id));
        RETURN NULL;
      END $$;

ALTER FUNCTION public.app_mail_merchant_notice() OWNER TO storefront_system;

CREATE FUNCTION public.app_managed_store_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        DECLARE
          me uuid := app_user_id();
        BEGIN
          IF me IS NULL THEN
            RETURN '{}';
          END IF;
          RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me);
        END $$;

ALTER FUNCTION public.app_managed_store_ids() OWNER TO storefront_system;

CREATE FUNCTION public.app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) RETURNS TABLE(previous_quantity integer, quantity integer)
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        UPDATE products
           SET inventory_quantity = inventory_quantity + p_delta, updated_at = now()
         WHERE id = p_product
           AND inventory_quantity::bigint + p_delta BETWEEN 0 AND 1000000000
           AND (NOT p_active_only OR status = 'active')
           AND (app_role() = 'admin' OR store_id = ANY (app_store_ids_with('catalog')))
        RETURNING inventory_quantity - p_delta, inventory_quantity
      $$;

ALTER FUNCTION public.app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) OWNER TO storefront_system;

CREATE FUNCTION public.app_number_order() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        next_number bigint;
      BEGIN
        INSERT INTO store_order_counters (store_id, last_number) VALUES (NEW.store_id, 1001)
        ON CONFLICT (store_id) DO UPDATE SET last_number = store_order_counters.last_number + 1
        RETURNING last_number INTO next_number;
        NEW.order_number := next_number::text;
        RETURN NEW;
      END $$;

ALTER FUNCTION public.app_number_order() OWNER TO storefront_system;

CREATE FUNCTION public.app_open_credit_account(p_store uuid) RETURNS void
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

ALTER FUNCTION public.app_open_credit_account(p_store uuid) OWNER TO storefront_system;

CREATE FUNCTION public.app_price_order_item() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NEW.product_id IS NOT NULL THEN
          SELECT p.name, p.price INTO NEW.name, NEW.price FROM products p WHERE p.id = NEW.product_id AND p.store_id = NEW.store_id;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'order item % is not a product of the store', NEW.product_id USING ERRCODE = '23503';
          END IF;
        END IF;
        RETURN NEW;
      END $$;

ALTER FUNCTION public.app_price_order_item() OWNER TO storefront_system;

CREATE FUNCTION public.app_refund_credits(p_charge uuid) RETURNS integer
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

ALTER FUNCTION public.app_refund_credits(p_charge uuid) OWNER TO storefront_system;

CREATE FUNCTION public.app_return_order_stock(p_order uuid) RETURNS TABLE(product_id uuid, previous_quantity integer, quantity integer, delta integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        line record;
      BEGIN
        UPDATE orders o SET stock_returned = true
         WHERE o.id = p_order AND o.stock_taken AND NOT o.stock_returned AND o.status = 'cancelled'
           AND o.xmin = pg_current_xact_id()::xid AND (app_role() = 'admin' OR o.store_id = ANY (app_store_ids_with('orders')) OR o.customer_id = ANY (app_customer_ids()));
        IF NOT FOUND THEN
          RAISE EXCEPTION 'order % was not cancelled by the caller in this transaction, or has returned its stock', p_order
            USING ERRCODE = '42501';
        END IF;
        FOR line IN
          SELECT i.product_id AS id, sum(i.quantity)::integer AS back FROM order_items i
           WHERE i.order_id = p_order AND i.product_id IS NOT NULL GROUP BY i.product_id ORDER BY i.product_id
        LOOP
          product_id := line.id;
          delta := line.back;
          UPDATE products p SET inventory_quantity = p.inventory_quantity + line.back, updated_at = now()
           WHERE p.id = line.id AND p.inventory_quantity::bigint + line.back <= 1000000000
          RETURNING p.inventory_quantity - line.back, p.inventory_quantity INTO previous_quantity, quantity;
          IF FOUND THEN
            RETURN NEXT;
          END IF;
        END LOOP;
      END $$;

ALTER FUNCTION public.app_return_order_stock(p_order uuid) OWNER TO storefront_system;

CREATE FUNCTION public.app_role() RETURNS text
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.role', true) ELSE 'none' END;
      END $$;

ALTER FUNCTION public.app_role() OWNER TO storefront_system;

CREATE FUNCTION public.app_sandbox_post(p_platform_post_id text) RETURNS TABLE(text text, published_at timestamp with time zone)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        SELECT p.content->>'text', r.published_at
          FROM social_post_results r JOIN social_posts p ON p.id = r.post_id
         WHERE r.platform_post_id = p_platform_post_id AND r.status = 'published'
         LIMIT 1
      $$;

ALTER FUNCTION public.app_sandbox_post(p_platform_post_id text) OWNER TO storefront_system;

CREATE FUNCTION public.app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) RETURNS SETOF uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
      BEGIN
        IF NOT (app_role() = 'admin' OR p_store = ANY (app_store_ids_with('customers'))) THEN
          RETURN;
        END IF;
        RETURN QUERY EXECUTE
          'SELECT c.id FROM customers c
            WHERE c.store_id = $1 AND (c.name ILIKE $2 OR c.email ILIKE $2)
              AND ($3::timestamptz IS NULL OR (c.created_at, c.id) < ($3, $4))
            ORDER BY c.created_at DESC, c.id DESC LIMIT $5'
          USING p_store, p_pattern, p_before_created, p_before_id, least(p_limit, 101);
      END $_$;

ALTER FUNCTION public.app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) OWNER TO storefront_system;

CREATE FUNCTION public.app_session_id() RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.session_id', true)::uuid END;
      END $$;

ALTER FUNCTION public.app_session_id() OWNER TO storefront_system;

CREATE FUNCTION public.app_staff_store_ids() RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        IF storefront_private.api_key_context_valid() THEN RETURN ARRAY[current_setting('app.api_key_store', true)::uuid]; END IF;
        RETURN '{}';
      END IF;
      RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active');
    END $$;

ALTER FUNCTION public.app_staff_store_ids() OWNER TO storefront_system;

CREATE FUNCTION public.app_start_connect(p_state_hash text, p_browser_secret text) RETURNS TABLE(outcome text, platform text, redirect_url text, code_verifier_sealed text, expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        found_state record;
      BEGIN
        IF p_state_hash IS NULL OR p_browser_secret IS NULL OR length(p_browser_secret) < 32 THEN
          RETURN;
        END IF;
        SELECT s.platform, s.redirect_url, s.code_verifier_sealed, s.expires_at, s.browser_hash INTO found_state
          FROM social_connect_states s
         WHERE s.state_hash = p_state_hash AND s.taken_at IS NULL
           FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        platform := found_state.platform;
        redirect_url := found_state.redirect_url;
        expires_at := found_state.expires_at;
        IF found_state.browser_hash IS NOT NULL THEN
          outcome := 'already_started';
        ELSIF found_state.expires_at <= now() THEN
          outcome := 'expired';
        ELSE
          UPDATE social_connect_states s SET browser_hash = encode(sha256(convert_to(p_browser_secret, 'UTF8')), 'hex'), started_at = now()
           WHERE s.state_hash = p_state_hash;
          outcome := 'started';
          code_verifier_sealed := found_state.code_verifier_sealed;
        END IF;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.app_start_connect(p_state_hash text, p_browser_secret text) OWNER TO storefront_system;

CREATE FUNCTION public.app_store_ids_with(p_permission text) RETURNS uuid[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        IF storefront_private.api_key_context_valid() THEN IF p_permission = ANY (string_to_array(current_setting('app.api_key_permissions', true), ',')) THEN
            RETURN ARRAY[current_setting('app.api_key_store', true)::uuid];
          END IF; END IF;
        RETURN '{}';
      END IF;
      RETURN ARRAY(SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members
              WHERE user_id = me AND status = 'active' AND p_permission = ANY (permissions));
    END $$;

ALTER FUNCTION public.app_store_ids_with(p_permission text) OWNER TO storefront_system;

CREATE FUNCTION public.app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) RETURNS TABLE(outcome text, store_id uuid, user_id uuid, platform text, redirect_url text, code_verifier_sealed text, expires_at timestamp with time zone)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        found_state record;
      BEGIN
        -- Expired states are of no use to anyone: each callback clears them (taken ones too).
        DELETE FROM social_connect_states s WHERE s.expires_at < now() - interval '1 hour';
        IF p_state_hash IS NULL OR (p_completion IS NOT NULL AND length(p_completion) < 32) THEN
          RETURN;
        END IF;
        SELECT s.store_id, s.user_id, s.platform, s.redirect_url, s.code_verifier_sealed, s.expires_at, s.browser_hash INTO found_state
          FROM social_connect_states s
         WHERE s.state_hash = p_state_hash AND s.taken_at IS NULL
           FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        platform := found_state.platform;
        redirect_url := found_state.redirect_url;
        expires_at := found_state.expires_at;
        IF found_state.browser_hash IS NULL OR p_browser_secret IS NULL
           OR sha256(convert_to(found_state.browser_hash, 'UTF8')) <> sha256(convert_to(encode(sha256(convert_to(p_browser_secret, 'UTF8')), 'hex'), 'UTF8')) THEN
          outcome := 'browser_mismatch';
        ELSIF found_state.expires_at <= now() THEN
          outcome := 'expired';
        ELSIF p_completion IS NULL THEN
          outcome := 'spent';
        ELSE
          UPDATE social_connect_states s SET taken_at = now(), completion_hash = encode(sha256(convert_to(p_completion, 'UTF8')), 'hex')
           WHERE s.state_hash = p_state_hash;
          outcome := 'taken';
          store_id := found_state.store_id;
          user_id := found_state.user_id;
          code_verifier_sealed := found_state.code_verifier_sealed;
          RETURN NEXT;
          RETURN;
        END IF;
        -- Single use: a state that is not taken for completion is gone.
        DELETE FROM social_connect_states s WHERE s.state_hash = p_state_hash;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) OWNER TO storefront_system;

CREATE FUNCTION public.app_take_order_stock(p_order uuid) RETURNS TABLE(product_id uuid, previous_quantity integer, quantity integer, delta integer, taken boolean)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        line record;
      BEGIN
        UPDATE orders o SET stock_taken = true
         WHERE o.id = p_order AND NOT o.stock_taken AND o.status = 'pending' AND o.xmin = pg_current_xact_id()::xid AND (app_role() = 'admin' OR o.store_id = ANY (app_store_ids_with('orders')) OR o.customer_id = ANY (app_customer_ids()));
        IF NOT FOUND THEN
          RAISE EXCEPTION 'order % is not a new order of the caller, or has taken its stock', p_order USING ERRCODE = '42501';
        END IF;
        FOR line IN
          SELECT i.product_id AS id, sum(i.quantity)::integer AS wanted FROM order_items i
           WHERE i.order_id = p_order AND i.product_id IS NOT NULL GROUP BY i.product_id ORDER BY i.product_id
        LOOP
          product_id := line.id;
          delta := -line.wanted;
          UPDATE products p SET inventory_quantity = p.inventory_quantity - line.wanted, updated_at = now()
           WHERE p.id = line.id AND p.status = 'active' AND p.inventory_quantity >= line.wanted
          RETURNING p.inventory_quantity + line.wanted, p.inventory_quantity INTO previous_quantity, quantity;
          taken := FOUND;
          RETURN NEXT;
          IF NOT taken THEN
            RETURN;
          END IF;
        END LOOP;
      END $$;

ALTER FUNCTION public.app_take_order_stock(p_order uuid) OWNER TO storefront_system;

CREATE FUNCTION public.app_touch_api_key(p_hash text) RETURNS boolean
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

ALTER FUNCTION public.app_touch_api_key(p_hash text) OWNER TO storefront_system;

CREATE FUNCTION public.app_user_id() RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN CASE WHEN app_context_valid() THEN current_setting('app.user_id', true)::uuid END;
      END $$;

ALTER FUNCTION public.app_user_id() OWNER TO storefront_system;

CREATE FUNCTION public.auth_accept_invitation_link(p_link_hash bytea) RETURNS TABLE(outcome text, user_id uuid, email text, store_id uuid)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        invitation record;
        account record;
      BEGIN
        SELECT m.id, m.store_id, m.email INTO invitation FROM store_members m
         WHERE m.invite_link_hash = p_link_hash AND m.status = 'invited' AND m.invite_expires_at > now()
         FOR UPDATE;
        IF NOT FOUND THEN
          outcome := 'invalid';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO users (email, password_hash, role, provider, email_confirmed_at)
        VALUES (invitation.email, NULL, 'team_member', 'email', now())
        ON CONFLICT ((lower(email))) DO NOTHING;
        SELECT u.id, u.email, u.role INTO account FROM users u WHERE lower(u.email) = lower(invitation.email) FOR UPDATE;
        IF account.role <> 'team_member' THEN
          outcome := 'wrong_role';
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
        UPDATE store_members SET user_id = account.id, status = 'active', accepted_at = now(), updated_at = now(),
                                 invite_token_hash = NULL, invite_link_hash = NULL
         WHERE id = invitation.id;
        outcome := 'accepted';
        user_id := account.id;
        email := account.email;
        store_id := invitation.store_id;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_accept_invitation_link(p_link_hash bytea) OWNER TO storefront_system;

CREATE FUNCTION public.auth_change_email(p_new_email text, p_ticket text) RETURNS TABLE(outcome text, old_email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT storefront_private.ticket_valid('email-change-now', me::text || ':' || lower(p_new_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        SELECT u.email INTO old_email FROM users u WHERE u.id = me FOR UPDATE;
        BEGIN
          UPDATE users SET email = p_new_email, new_email = NULL, email_change_sent_at = NULL, updated_at = now() WHERE id = me;
        EXCEPTION WHEN unique_violation THEN
          outcome := 'email_taken';
          RETURN NEXT;
          RETURN;
        END;
        DELETE FROM auth_one_time_tokens WHERE user_id = me AND kind = 'email_change';
        outcome := 'changed';
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_change_email(p_new_email text, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) RETURNS TABLE(outcome text, user_id uuid)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        existing record;
      BEGIN
        IF NOT storefront_private.ticket_valid('create-user', lower(p_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_role NOT IN ('merchant', 'customer', 'team_member') THEN
          RAISE EXCEPTION 'no such role for a new account: %', p_role USING ERRCODE = '22023';
        END IF;
        IF p_role = 'customer' AND NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store) THEN
          outcome := 'unknown_store';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, store_id, email_confirmed_at)
        VALUES (p_email, p_password_hash, p_role, p_full_name, p_provider, CASE WHEN p_role = 'customer' THEN p_store END,
                CASE WHEN p_confirmed THEN now() END)
        ON CONFLICT ((lower(email))) DO NOTHING
        RETURNING id INTO user_id;
        IF user_id IS NOT NULL THEN
          outcome := 'created';
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT u.id, u.email_confirmed_at, u.role INTO existing FROM users u WHERE lower(u.email) = lower(p_email) FOR UPDATE;
        IF p_confirmed OR existing.email_confirmed_at IS NOT NULL OR existing.role = 'admin' THEN
          outcome := 'email_taken';
        ELSE
          UPDATE users SET password_hash = p_password_hash, full_name = coalesce(p_full_name, full_name), updated_at = now()
           WHERE id = existing.id;
          outcome := 'unconfirmed';
          user_id := existing.id;
        END IF;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_end_sessions(p_scope text) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        ended integer;
      BEGIN
        IF app_user_id() IS NULL OR p_scope NOT IN ('local', 'global', 'others') THEN
          RETURN 0;
        END IF;
        UPDATE auth_sessions SET revoked_at = now()
         WHERE user_id = app_user_id() AND revoked_at IS NULL
           AND CASE p_scope WHEN 'local' THEN id = app_session_id() WHEN 'others' THEN id <> app_session_id() ELSE true END;
        GET DIAGNOSTICS ended = ROW_COUNT;
        RETURN ended;
      END $$;

ALTER FUNCTION public.auth_end_sessions(p_scope text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NOT storefront_private.ticket_valid('flow-link', encode(p_link_hash, 'hex'), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        DELETE FROM auth_flow_states WHERE expires_at < now() - interval '1 hour';
        INSERT INTO auth_flow_states (link_hash, authentication_method, code_challenge, code_challenge_method,
                                      expires_at)
        VALUES (p_link_hash, p_kind, p_challenge, p_method, now() + make_interval(secs => p_ttl_seconds));
      END $$;

ALTER FUNCTION public.auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_flow_exchange(p_code_hash bytea, p_verifier text) RETURNS TABLE(outcome text, user_id uuid, kind text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        flow record;
        proof text;
      BEGIN
        SELECT f.id, f.user_id, f.authentication_method, f.code_challenge, f.code_challenge_method, f.expires_at
          INTO flow
          FROM auth_flow_states f WHERE f.auth_code_hash = p_code_hash FOR UPDATE;
        IF NOT FOUND THEN
          outcome := 'not_found';
          RETURN NEXT;
          RETURN;
        END IF;
        IF flow.expires_at <= now() THEN
          outcome := 'expired';
          RETURN NEXT;
          RETURN;
        END IF;
        proof := CASE flow.code_challenge_method WHEN 's256' THEN translate(rtrim(encode(sha256(convert_to(p_verifier, 'UTF8')), 'base64'), '='), '+/', '-_') ELSE p_verifier END;
        IF proof IS NULL OR proof IS DISTINCT FROM flow.code_challenge THEN
          outcome := 'bad_verifier';
          RETURN NEXT;
          RETURN;
        END IF;
        DELETE FROM auth_flow_states WHERE id = flow.id;
        outcome := 'exchanged';
        user_id := flow.user_id;
        kind := flow.authentication_method;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_flow_exchange(p_code_hash bytea, p_verifier text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NOT storefront_private.ticket_valid('flow-code', p_user::text, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_link_hash IS NOT NULL THEN
          UPDATE auth_flow_states
             SET link_hash = NULL, auth_code_hash = p_code_hash, user_id = p_user, created_at = now(),
                 expires_at = now() + make_interval(secs => p_ttl_seconds)
           WHERE link_hash = p_link_hash AND expires_at > now();
          RETURN FOUND;
        END IF;
        INSERT INTO auth_flow_states (auth_code_hash, user_id, authentication_method, code_challenge,
                                      code_challenge_method, expires_at)
        VALUES (p_code_hash, p_user, p_kind, p_challenge, p_method, now() + make_interval(secs => p_ttl_seconds));
        RETURN true;
      END $$;

ALTER FUNCTION public.auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_google_account(p_email text, p_full_name text, p_ticket text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        account record;
        created uuid;
      BEGIN
        IF NOT storefront_private.ticket_valid('google', lower(p_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, email_confirmed_at)
        VALUES (p_email, NULL, 'merchant', p_full_name, 'google', now())
        ON CONFLICT ((lower(email))) DO NOTHING RETURNING id INTO created;
        IF created IS NOT NULL THEN
          RETURN created;
        END IF;
        SELECT u.id, u.password_hash INTO account FROM users u WHERE lower(u.email) = lower(p_email);
        UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
        IF account.password_hash IS NOT NULL THEN
          UPDATE users SET password_hash = NULL, updated_at = now() WHERE id = account.id;
          UPDATE auth_sessions SET revoked_at = now() WHERE user_id = account.id AND revoked_at IS NULL;
        END IF;
        RETURN account.id;
      END $$;

ALTER FUNCTION public.auth_google_account(p_email text, p_full_name text, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) RETURNS TABLE(user_id uuid, email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        account record;
      BEGIN
        IF NOT storefront_private.ticket_valid('issue-token', lower(p_email) || ':magiclink', p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        SELECT u.id, u.email INTO account FROM users u
         WHERE lower(u.email) = lower(p_email) AND u.role <> 'admin'
           AND (p_any_account OR u.email_confirmed_at IS NOT NULL)
         FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (account.id, 'magiclink', account.email, p_token_hash, p_code_hash,
                now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        user_id := account.id;
        email := account.email;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) RETURNS TABLE(user_id uuid, recipient text, email text, new_email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        account record;
      BEGIN
        IF NOT storefront_private.ticket_valid('issue-token', lower(p_email) || ':' || p_kind, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        SELECT u.id, u.email, u.new_email INTO account FROM users u
         WHERE lower(u.email) = lower(p_email) AND u.role <> 'admin'
           AND CASE p_kind WHEN 'signup' THEN u.email_confirmed_at IS NULL
                           WHEN 'recovery' THEN true
                           WHEN 'email_change' THEN u.new_email IS NOT NULL
                           ELSE false END
         FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (account.id, p_kind, CASE WHEN p_kind = 'email_change' THEN account.new_email ELSE account.email END, p_token_hash, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        UPDATE users SET confirmation_sent_at = CASE WHEN p_kind = 'signup' THEN now() ELSE confirmation_sent_at END,
                         recovery_sent_at = CASE WHEN p_kind = 'recovery' THEN now() ELSE recovery_sent_at END,
                         email_change_sent_at = CASE WHEN p_kind = 'email_change' THEN now() ELSE email_change_sent_at END
         WHERE id = account.id;
        user_id := account.id;
        recipient := CASE WHEN p_kind = 'email_change' THEN account.new_email ELSE account.email END;
        email := account.email;
        new_email := account.new_email;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        session uuid;
      BEGIN
        IF NOT storefront_private.ticket_valid('open-session', p_user::text, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        INSERT INTO auth_sessions (user_id, user_agent, ip) VALUES (p_user, left(p_user_agent, 512), p_ip) RETURNING id INTO session;
        INSERT INTO auth_refresh_tokens (session_id, token_hash) VALUES (session, p_refresh_hash);
        UPDATE users SET last_sign_in_at = now() WHERE id = p_user;
        RETURN session;
      END $$;

ALTER FUNCTION public.auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_password_candidate(p_email text, p_ticket text) RETURNS TABLE(user_id uuid, password_hash text, email_confirmed boolean)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        IF NOT storefront_private.ticket_valid('sign-in', lower(p_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        RETURN QUERY SELECT u.id, u.password_hash, u.email_confirmed_at IS NOT NULL FROM users u WHERE lower(u.email) = lower(p_email);
      END $$;

ALTER FUNCTION public.auth_password_candidate(p_email text, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) RETURNS TABLE(outcome text, email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT storefront_private.ticket_valid('email-change', me::text || ':' || lower(p_new_email), p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(p_new_email) AND u.id <> me) THEN
          outcome := 'email_taken';
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE users SET new_email = p_new_email, email_change_sent_at = now() WHERE id = me RETURNING users.email INTO email;
        
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (me, 'email_change', p_new_email, p_token_hash, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        outcome := 'requested';
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) RETURNS TABLE(outcome text, session_id uuid, user_id uuid, current_hash bytea, hops integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        known record;
        head record;
      BEGIN
        UPDATE auth_refresh_tokens t SET used_at = now()
          FROM auth_sessions s
         WHERE t.token_hash = p_old_hash AND t.used_at IS NULL AND s.id = t.session_id AND s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM storefront_private.installation i)
        RETURNING t.id, t.session_id, s.user_id INTO token;
        IF FOUND THEN
          INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id)
          VALUES (token.session_id, p_new_hash, token.id);
          UPDATE auth_sessions SET refreshed_at = now() WHERE id = token.session_id;
          outcome := 'rotated';
          session_id := token.session_id;
          user_id := token.user_id;
          current_hash := p_new_hash;
          hops := 1;
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT t.id, t.session_id, t.used_at, s.user_id, (s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM storefront_private.installation i)) AS live INTO known
          FROM auth_refresh_tokens t JOIN auth_sessions s ON s.id = t.session_id
         WHERE t.token_hash = p_old_hash;
        IF NOT FOUND OR known.used_at IS NULL THEN
          outcome := 'unknown';
          RETURN NEXT;
          RETURN;
        END IF;
        outcome := 'reused';
        session_id := known.session_id;
        IF known.live AND p_reuse_seconds > 0 AND known.used_at > now() - make_interval(secs => p_reuse_seconds) THEN
          FOR attempt IN 1..10 LOOP
            WITH RECURSIVE chain (id, token_hash, used_at, depth) AS (
              SELECT known.id, p_old_hash, known.used_at, 0
              UNION ALL
              SELECT c.id, c.token_hash, c.used_at, chain.depth + 1
                FROM chain JOIN auth_refresh_tokens c ON c.session_id = known.session_id AND c.parent_id = chain.id
               WHERE chain.used_at IS NOT NULL AND chain.depth < 1000
            )
            SELECT chain.id, chain.token_hash, chain.depth INTO head FROM chain WHERE chain.used_at IS NULL;
            EXIT WHEN NOT FOUND;
            PERFORM 1 FROM auth_refresh_tokens t WHERE t.id = head.id AND t.used_at IS NULL FOR SHARE;
            IF FOUND THEN
              outcome := 'current';
              user_id := known.user_id;
              current_hash := head.token_hash;
              hops := head.depth;
              RETURN NEXT;
              RETURN;
            END IF;
          END LOOP;
          -- Within the interval nothing is revoked, even when no current token could be pinned down.
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE auth_sessions SET revoked_at = now() WHERE id = known.session_id AND revoked_at IS NULL;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) OWNER TO storefront_system;

CREATE FUNCTION public.auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) RETURNS TABLE(outcome text, ended integer)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT storefront_private.ticket_valid('set-password', me::text, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_recent_seconds IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM auth_sessions s WHERE s.id = app_session_id() AND s.created_at > now() - make_interval(secs => p_recent_seconds)) THEN
          outcome := 'reauthentication_needed';
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE users SET password_hash = p_password_hash, updated_at = now() WHERE id = me;
        UPDATE auth_sessions SET revoked_at = now() WHERE user_id = me AND id <> app_session_id() AND revoked_at IS NULL;
        GET DIAGNOSTICS ended = ROW_COUNT;
        DELETE FROM auth_one_time_tokens WHERE user_id = me AND kind = 'recovery';
        outcome := 'changed';
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) RETURNS TABLE(outcome text, user_id uuid, email text, old_email text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        account record;
      BEGIN
        IF p_code_hash IS NOT NULL AND NOT storefront_private.ticket_valid('verify-code', lower(p_email) || ':' || p_kind, p_ticket) THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        DELETE FROM auth_one_time_tokens t
         WHERE t.id = (SELECT o.id FROM auth_one_time_tokens o
                        WHERE o.kind = p_kind
                          AND CASE WHEN p_code_hash IS NULL THEN o.token_hash = p_token_hash
                                   ELSE lower(o.email) = lower(p_email) AND o.code_hash = p_code_hash END
                        ORDER BY o.created_at DESC LIMIT 1 FOR UPDATE)
        RETURNING t.user_id, t.email, t.expires_at INTO token;
        IF NOT FOUND OR token.expires_at <= now() THEN
          outcome := 'invalid';
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT u.id, u.email, u.new_email INTO account FROM users u WHERE u.id = token.user_id FOR UPDATE;
        IF p_kind = 'email_change' THEN
          IF account.new_email IS NULL OR lower(account.new_email) <> lower(token.email) THEN
            outcome := 'invalid';
          RETURN NEXT;
          RETURN;
          END IF;
          BEGIN
            UPDATE users SET email = account.new_email, new_email = NULL, email_change_sent_at = NULL,
                             email_confirmed_at = now(), updated_at = now()
             WHERE id = account.id;
          EXCEPTION WHEN unique_violation THEN
            outcome := 'email_taken';
          RETURN NEXT;
          RETURN;
          END;
          old_email := account.email;
          email := account.new_email;
        ELSE
          UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
          email := account.email;
        END IF;
        outcome := 'verified';
        user_id := account.id;
        RETURN NEXT;
      END $$;

ALTER FUNCTION public.auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) OWNER TO storefront_system;

CREATE FUNCTION public.credit_ledger_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RAISE EXCEPTION 'credit_ledger is append-only';
      END $$;

ALTER FUNCTION public.credit_ledger_append_only() OWNER TO storefront_owner;

CREATE FUNCTION public.outbox_events_notify() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        PERFORM pg_notify('outbox_events', NEW.id::text);
        RETURN NULL;
      END $$;

ALTER FUNCTION public.outbox_events_notify() OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN encode(storefront_private.hmac(concat_ws(':', 'api-key-context', pg_backend_pid(),
                      extract(epoch FROM transaction_timestamp()), p_key, p_store, p_permissions)), 'hex');
      END $$;

ALTER FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.api_key_context_valid() RETURNS boolean
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        context text := current_setting('app.api_key_context', true);
      BEGIN
        IF context IS NULL OR context = '' THEN
          RETURN false;
        END IF;
        RETURN sha256(convert_to(context, 'UTF8'))
             = sha256(convert_to(storefront_private.api_key_context_mac(
                 current_setting('app.api_key_id', true), current_setting('app.api_key_store', true),
                 current_setting('app.api_key_permissions', true)), 'UTF8'));
      END $$;

ALTER FUNCTION storefront_private.api_key_context_valid() OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.clean_session() RETURNS void
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RESET ALL;
        PERFORM pg_advisory_unlock_all();
      END $$;

ALTER FUNCTION storefront_private.clean_session() OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      BEGIN
        RETURN encode(storefront_private.hmac(concat_ws(':', 'context', pg_backend_pid(), extract(epoch FROM transaction_timestamp()),
                                                       p_user, p_role, p_session)), 'hex');
      END $$;

ALTER FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.hmac(p_message text) RETURNS bytea
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
      DECLARE
        mac bytea;
      BEGIN
        SELECT sha256(i.binding_opad || sha256(i.binding_ipad || convert_to(p_message, 'UTF8'))) INTO mac FROM storefront_private.installation i;
        RETURN mac;
      END $$;

ALTER FUNCTION storefront_private.hmac(p_message text) OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
        -- False, never unknown: a caller's `IF NOT ticket_valid(…)` must refuse a missing subject or ticket.
        SELECT coalesce(
          p_ticket ~ '^[0-9]{13}[.][0-9a-f]{64}$'
           AND abs(extract(epoch FROM clock_timestamp()) * 1000 - split_part(p_ticket, '.', 1)::numeric) < 60000
           AND sha256(convert_to(split_part(p_ticket, '.', 2), 'UTF8'))
             = sha256(convert_to(encode(storefront_private.hmac(p_purpose || ':' || p_subject || ':' || split_part(p_ticket, '.', 1)), 'hex'), 'UTF8')),
          false)
      $_$;

ALTER FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) OWNER TO storefront_owner;

CREATE FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) RETURNS TABLE(id uuid, email text, role text, store_id uuid)
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
        SELECT u.id, u.email, u.role, u.store_id
          FROM auth_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id = p_session AND s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM storefront_private.installation i)
           AND p_proof IS NOT NULL
           AND sha256(convert_to(p_proof, 'UTF8')) = sha256(convert_to(encode(storefront_private.hmac('session:' || p_session::text), 'hex'), 'UTF8'))
      $$;

ALTER FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) OWNER TO storefront_owner;

CREATE TABLE public.ai_images (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    content_type text NOT NULL,
    width integer NOT NULL,
    height integer NOT NULL,
    bytes bytea NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    CONSTRAINT ai_images_png CHECK ((content_type = 'image/png'::text))
);

ALTER TABLE ONLY public.ai_images FORCE ROW LEVEL SECURITY;

ALTER TABLE public.ai_images OWNER TO storefront_owner;

CREATE TABLE public.auth_flow_states (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    link_hash bytea,
    auth_code_hash bytea,
    user_id uuid,
    authentication_method text NOT NULL,
    code_challenge text NOT NULL,
    code_challenge_method text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT auth_flow_states_authentication_method_check CHECK ((authentication_method = ANY (ARRAY['signup'::text, 'recovery'::text, 'email_change'::text, 'magiclink'::text, 'google'::text]))),
    CONSTRAINT auth_flow_states_check CHECK (((link_hash IS NULL) <> (auth_code_hash IS NULL))),
    CONSTRAINT auth_flow_states_check1 CHECK (((auth_code_hash IS NULL) OR (user_id IS NOT NULL))),
    CONSTRAINT auth_flow_states_code_challenge_check CHECK (((length(code_challenge) >= 43) AND (length(code_challenge) <= 128))),
    CONSTRAINT auth_flow_states_code_challenge_method_check CHECK ((code_challenge_method = ANY (ARRAY['s256'::text, 'plain'::text])))
);

ALTER TABLE ONLY public.auth_flow_states FORCE ROW LEVEL SECURITY;

ALTER TABLE public.auth_flow_states OWNER TO storefront_owner;

CREATE TABLE public.auth_one_time_tokens (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    kind text NOT NULL,
    email text NOT NULL,
    token_hash bytea NOT NULL,
    code_hash bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT auth_one_time_tokens_kind_check CHECK ((kind = ANY (ARRAY['signup'::text, 'recovery'::text, 'email_change'::text, 'magiclink'::text])))
);

ALTER TABLE ONLY public.auth_one_time_tokens FORCE ROW LEVEL SECURITY;

ALTER TABLE public.auth_one_time_tokens OWNER TO storefront_owner;

CREATE TABLE public.auth_refresh_tokens (
    id bigint NOT NULL,
    session_id uuid NOT NULL,
    token_hash bytea NOT NULL,
    parent_id bigint,
    used_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.auth_refresh_tokens FORCE ROW LEVEL SECURITY;

ALTER TABLE public.auth_refresh_tokens OWNER TO storefront_owner;

CREATE SEQUENCE public.auth_refresh_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER TABLE public.auth_refresh_tokens_id_seq OWNER TO storefront_owner;

ALTER SEQUENCE public.auth_refresh_tokens_id_seq OWNED BY public.auth_refresh_tokens.id;

CREATE TABLE public.auth_sessions (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    refreshed_at timestamp with time zone,
    revoked_at timestamp with time zone,
    user_agent text,
    ip inet
);

ALTER TABLE ONLY public.auth_sessions FORCE ROW LEVEL SECURITY;

ALTER TABLE public.auth_sessions OWNER TO storefront_owner;

CREATE TABLE public.credit_accounts (
    store_id uuid NOT NULL,
    balance integer NOT NULL,
    updated_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT credit_accounts_balance_check CHECK ((balance >= 0))
);

ALTER TABLE ONLY public.credit_accounts FORCE ROW LEVEL SECURITY;

ALTER TABLE public.credit_accounts OWNER TO storefront_owner;

CREATE TABLE public.credit_ledger (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    kind text NOT NULL,
    amount integer NOT NULL,
    function text,
    reference text,
    refund_of uuid,
    created_by uuid,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    api_key_id uuid,
    CONSTRAINT credit_ledger_check CHECK (
CASE kind
    WHEN 'charge'::text THEN (amount < 0)
    ELSE (amount > 0)
END),
    CONSTRAINT credit_ledger_check1 CHECK (((kind = 'refund'::text) = (refund_of IS NOT NULL))),
    CONSTRAINT credit_ledger_check2 CHECK (((kind = 'grant'::text) = (function IS NULL))),
    CONSTRAINT credit_ledger_kind_check CHECK ((kind = ANY (ARRAY['grant'::text, 'charge'::text, 'refund'::text]))),
    CONSTRAINT credit_ledger_one_actor CHECK (((created_by IS NULL) OR (api_key_id IS NULL)))
);

ALTER TABLE ONLY public.credit_ledger FORCE ROW LEVEL SECURITY;

ALTER TABLE public.credit_ledger OWNER TO storefront_owner;

CREATE TABLE public.customers (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    user_id uuid,
    name text NOT NULL,
    email text NOT NULL,
    phone text,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.customers FORCE ROW LEVEL SECURITY;

ALTER TABLE public.customers OWNER TO storefront_owner;

CREATE TABLE public.dev_mailbox (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    mail_id uuid NOT NULL,
    template text NOT NULL,
    recipient text NOT NULL,
    sender text NOT NULL,
    subject text NOT NULL,
    text_body text NOT NULL,
    html_body text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);

ALTER TABLE ONLY public.dev_mailbox FORCE ROW LEVEL SECURITY;

ALTER TABLE public.dev_mailbox OWNER TO storefront_owner;

CREATE TABLE public.idempotency_keys (
    user_id uuid NOT NULL,
    key text NOT NULL,
    route text NOT NULL,
    fingerprint text NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    response_status smallint,
    response_headers jsonb,
    response_body bytea,
    caller text NOT NULL,
    CONSTRAINT idempotency_keys_answer CHECK (((state = 'pending'::text) OR ((response_status IS NOT NULL) AND (response_headers IS NOT NULL) AND (response_body IS NOT NULL)))),
    CONSTRAINT idempotency_keys_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'done'::text])))
);

ALTER TABLE ONLY public.idempotency_keys FORCE ROW LEVEL SECURITY;

ALTER TABLE public.idempotency_keys OWNER TO storefront_owner;

CREATE TABLE public.mail_outbox (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    template text NOT NULL,
    recipient text NOT NULL,
    store_id uuid,
    user_id uuid,
    language text DEFAULT 'en'::text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    secret_sealed text,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    last_error text,
    message_id text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT mail_outbox_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'sent'::text, 'failed'::text]))),
    CONSTRAINT mail_outbox_template_check CHECK ((template = ANY (ARRAY['confirm_signup'::text, 'reset_password'::text, 'confirm_email_change'::text, 'email_changed'::text, 'team_invitation'::text, 'webhook_disabled'::text, 'social_post_failed'::text, 'magic_link'::text])))
);

ALTER TABLE ONLY public.mail_outbox FORCE ROW LEVEL SECURITY;

ALTER TABLE public.mail_outbox OWNER TO storefront_owner;

CREATE TABLE public.merchant_notifications (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    kind text NOT NULL,
    message text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL
);

ALTER TABLE ONLY public.merchant_notifications FORCE ROW LEVEL SECURITY;

ALTER TABLE public.merchant_notifications OWNER TO storefront_owner;

CREATE TABLE public.migrations (
    id integer NOT NULL,
    "timestamp" bigint NOT NULL,
    name character varying NOT NULL
);

ALTER TABLE public.migrations OWNER TO storefront_owner;

CREATE SEQUENCE public.migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER TABLE public.migrations_id_seq OWNER TO storefront_owner;

ALTER SEQUENCE public.migrations_id_seq OWNED BY public.migrations.id;

CREATE TABLE public.order_items (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    order_id uuid NOT NULL,
    store_id uuid NOT NULL,
    product_id uuid,
    "position" integer NOT NULL,
    name text NOT NULL,
    quantity integer NOT NULL,
    price numeric(12,2) NOT NULL,
    CONSTRAINT order_items_price_check CHECK ((price >= (0)::numeric)),
    CONSTRAINT order_items_quantity_check CHECK ((quantity > 0))
);

ALTER TABLE ONLY public.order_items FORCE ROW LEVEL SECURITY;

ALTER TABLE public.order_items OWNER TO storefront_owner;

CREATE TABLE public.orders (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    order_number text DEFAULT ''::text NOT NULL,
    customer_id uuid,
    status text DEFAULT 'pending'::text NOT NULL,
    currency character(3) NOT NULL,
    total numeric(14,2) NOT NULL,
    placed_by uuid,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    stock_taken boolean DEFAULT false NOT NULL,
    stock_returned boolean DEFAULT false NOT NULL,
    CONSTRAINT orders_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'paid'::text, 'shipped'::text, 'delivered'::text, 'cancelled'::text, 'refunded'::text]))),
    CONSTRAINT orders_total_check CHECK ((total >= (0)::numeric))
);

ALTER TABLE ONLY public.orders FORCE ROW LEVEL SECURITY;

ALTER TABLE public.orders OWNER TO storefront_owner;

CREATE TABLE public.outbox_events (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    event text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    dispatched_at timestamp with time zone,
    actor jsonb
);

ALTER TABLE ONLY public.outbox_events FORCE ROW LEVEL SECURITY;

ALTER TABLE public.outbox_events OWNER TO storefront_owner;

CREATE TABLE public.outbox_owed_acks (
    publication_id uuid NOT NULL,
    subscriber text NOT NULL,
    event_ids uuid[] NOT NULL,
    due_at timestamp with time zone NOT NULL,
    publications integer DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.outbox_owed_acks FORCE ROW LEVEL SECURITY;

ALTER TABLE public.outbox_owed_acks OWNER TO storefront_owner;

CREATE TABLE public.products (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    name text NOT NULL,
    description text,
    price numeric(12,2) NOT NULL,
    compare_price numeric(12,2),
    category text,
    seo_keywords text[] DEFAULT '{}'::text[] NOT NULL,
    status text DEFAULT 'draft'::text NOT NULL,
    inventory_quantity integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT products_check CHECK ((compare_price >= price)),
    CONSTRAINT products_inventory_quantity_check CHECK ((inventory_quantity >= 0)),
    CONSTRAINT products_price_check CHECK ((price >= (0)::numeric)),
    CONSTRAINT products_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'active'::text, 'archived'::text])))
);

ALTER TABLE ONLY public.products FORCE ROW LEVEL SECURITY;

ALTER TABLE public.products OWNER TO storefront_owner;

CREATE TABLE public.social_accounts (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    platform text NOT NULL,
    platform_account_id text NOT NULL,
    username text NOT NULL,
    display_name text,
    access_token_sealed text NOT NULL,
    refresh_token_sealed text,
    token_expires_at timestamp with time zone,
    scopes text[] DEFAULT '{}'::text[] NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    connected_by uuid,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    CONSTRAINT social_accounts_status_check CHECK ((status = ANY (ARRAY['active'::text, 'reauthorize'::text])))
);

ALTER TABLE ONLY public.social_accounts FORCE ROW LEVEL SECURITY;

ALTER TABLE public.social_accounts OWNER TO storefront_owner;

CREATE TABLE public.social_connect_states (
    state_hash text NOT NULL,
    store_id uuid NOT NULL,
    user_id uuid NOT NULL,
    platform text NOT NULL,
    redirect_url text NOT NULL,
    code_verifier_sealed text,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    browser_hash text,
    started_at timestamp with time zone,
    taken_at timestamp with time zone,
    completion_hash text,
    CONSTRAINT social_connect_states_lifetime CHECK ((expires_at <= (created_at + '00:15:00'::interval)))
);

ALTER TABLE ONLY public.social_connect_states FORCE ROW LEVEL SECURITY;

ALTER TABLE public.social_connect_states OWNER TO storefront_owner;

CREATE TABLE public.social_platforms (
    id text NOT NULL,
    display_name text NOT NULL,
    CONSTRAINT social_platforms_display_name_check CHECK (((length(display_name) >= 1) AND (length(display_name) <= 100))),
    CONSTRAINT social_platforms_id_check CHECK ((id ~ '^[a-z][a-z0-9_]{0,29}$'::text))
);

ALTER TABLE ONLY public.social_platforms FORCE ROW LEVEL SECURITY;

ALTER TABLE public.social_platforms OWNER TO storefront_owner;

CREATE TABLE public.social_post_results (
    post_id uuid NOT NULL,
    store_id uuid NOT NULL,
    platform text NOT NULL,
    status text NOT NULL,
    platform_post_id text,
    url text,
    error_code text,
    error_message text,
    published_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    CONSTRAINT social_post_results_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'published'::text, 'failed'::text, 'cancelled'::text])))
);

ALTER TABLE ONLY public.social_post_results FORCE ROW LEVEL SECURITY;

ALTER TABLE public.social_post_results OWNER TO storefront_owner;

CREATE TABLE public.social_posts (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    created_by uuid,
    platforms text[] NOT NULL,
    content jsonb NOT NULL,
    status text NOT NULL,
    scheduled_at timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    publishing_started_at timestamp with time zone,
    finished_at timestamp with time zone,
    cancelled_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    updated_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, clock_timestamp()) NOT NULL,
    api_key_id uuid,
    CONSTRAINT social_posts_status_check CHECK ((status = ANY (ARRAY['scheduled'::text, 'publishing'::text, 'published'::text, 'partially_published'::text, 'failed'::text, 'cancelled'::text])))
);

ALTER TABLE ONLY public.social_posts FORCE ROW LEVEL SECURITY;

ALTER TABLE public.social_posts OWNER TO storefront_owner;

CREATE TABLE public.store_api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    name text NOT NULL,
    prefix text NOT NULL,
    secret_hash bytea NOT NULL,
    permissions text[] NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    CONSTRAINT store_api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100))),
    CONSTRAINT store_api_keys_permissions_check CHECK (((cardinality(permissions) > 0) AND (permissions <@ ARRAY['catalog'::text, 'orders'::text, 'customers'::text, 'ai'::text, 'social'::text, 'webhooks'::text, 'billing'::text]))),
    CONSTRAINT store_api_keys_secret_hash_check CHECK ((octet_length(secret_hash) = 32))
);

ALTER TABLE ONLY public.store_api_keys FORCE ROW LEVEL SECURITY;

ALTER TABLE public.store_api_keys OWNER TO storefront_owner;

CREATE TABLE public.store_mail_settings (
    store_id uuid NOT NULL,
    team_invitation boolean DEFAULT true NOT NULL,
    webhook_disabled boolean DEFAULT true NOT NULL,
    social_post_failed boolean DEFAULT true NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.store_mail_settings FORCE ROW LEVEL SECURITY;

ALTER TABLE public.store_mail_settings OWNER TO storefront_owner;

CREATE TABLE public.store_members (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    email text NOT NULL,
    user_id uuid,
    permissions text[] DEFAULT '{}'::text[] NOT NULL,
    status text DEFAULT 'invited'::text NOT NULL,
    invite_token_hash bytea,
    invite_expires_at timestamp with time zone,
    invited_by uuid,
    accepted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    invite_link_hash bytea,
    CONSTRAINT store_members_status_check CHECK ((status = ANY (ARRAY['invited'::text, 'active'::text])))
);

ALTER TABLE ONLY public.store_members FORCE ROW LEVEL SECURITY;

ALTER TABLE public.store_members OWNER TO storefront_owner;

CREATE TABLE public.store_order_counters (
    store_id uuid NOT NULL,
    last_number bigint NOT NULL
);

ALTER TABLE ONLY public.store_order_counters FORCE ROW LEVEL SECURITY;

ALTER TABLE public.store_order_counters OWNER TO storefront_owner;

CREATE TABLE public.stores (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    owner_id uuid NOT NULL,
    name text NOT NULL,
    currency character(3) DEFAULT 'USD'::bpchar NOT NULL,
    default_language text DEFAULT 'en'::text NOT NULL,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.stores FORCE ROW LEVEL SECURITY;

ALTER TABLE public.stores OWNER TO storefront_owner;

CREATE TABLE public.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text NOT NULL,
    password_hash text,
    role text NOT NULL,
    full_name text,
    provider text DEFAULT 'email'::text NOT NULL,
    store_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    last_sign_in_at timestamp with time zone,
    email_confirmed_at timestamp with time zone,
    confirmation_sent_at timestamp with time zone,
    recovery_sent_at timestamp with time zone,
    new_email text,
    email_change_sent_at timestamp with time zone,
    user_metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT users_check CHECK (((role = 'customer'::text) = (store_id IS NOT NULL))),
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['merchant'::text, 'team_member'::text, 'customer'::text, 'admin'::text]))),
    CONSTRAINT users_user_metadata_check CHECK (((jsonb_typeof(user_metadata) = 'object'::text) AND (octet_length((user_metadata)::text) <= 16384)))
);

ALTER TABLE ONLY public.users FORCE ROW LEVEL SECURITY;

ALTER TABLE public.users OWNER TO storefront_owner;

CREATE TABLE public.webhook_attempts (
    id bigint NOT NULL,
    delivery_id uuid NOT NULL,
    store_id uuid NOT NULL,
    attempt integer NOT NULL,
    started_at timestamp with time zone NOT NULL,
    duration_ms integer NOT NULL,
    status_code integer,
    error text,
    response_excerpt text,
    next_attempt_at timestamp with time zone
);

ALTER TABLE ONLY public.webhook_attempts FORCE ROW LEVEL SECURITY;

ALTER TABLE public.webhook_attempts OWNER TO storefront_owner;

CREATE SEQUENCE public.webhook_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER TABLE public.webhook_attempts_id_seq OWNER TO storefront_owner;

ALTER SEQUENCE public.webhook_attempts_id_seq OWNED BY public.webhook_attempts.id;

CREATE TABLE public.webhook_deliveries (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    webhook_id uuid NOT NULL,
    store_id uuid NOT NULL,
    event_id uuid NOT NULL,
    event text NOT NULL,
    body text NOT NULL,
    redelivery_of uuid,
    status text DEFAULT 'pending'::text NOT NULL,
    attempt_count integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now(),
    last_status_code integer,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    parked_at timestamp with time zone,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text, 'skipped'::text])))
);

ALTER TABLE ONLY public.webhook_deliveries FORCE ROW LEVEL SECURITY;

ALTER TABLE public.webhook_deliveries OWNER TO storefront_owner;

CREATE TABLE public.webhooks (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    store_id uuid NOT NULL,
    url text NOT NULL,
    events text[] NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    disabled_reason text,
    secret_sealed text NOT NULL,
    secret_hint text NOT NULL,
    previous_secret_sealed text,
    previous_secret_expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT date_trunc('milliseconds'::text, now()) NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhooks_status_check CHECK ((status = ANY (ARRAY['active'::text, 'disabled'::text])))
);

ALTER TABLE ONLY public.webhooks FORCE ROW LEVEL SECURITY;

ALTER TABLE public.webhooks OWNER TO storefront_owner;

CREATE TABLE storefront_private.declared_sql (
    id boolean DEFAULT true NOT NULL,
    digest text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT declared_sql_id_check CHECK (id)
);

ALTER TABLE storefront_private.declared_sql OWNER TO storefront_owner;

CREATE TABLE storefront_private.installation (
    id boolean DEFAULT true NOT NULL,
    binding_key bytea NOT NULL,
    binding_ipad bytea NOT NULL,
    binding_opad bytea NOT NULL,
    session_max_age interval NOT NULL,
    welcome_credits integer DEFAULT 50 NOT NULL,
    ai_hourly_limits jsonb DEFAULT '{}'::jsonb NOT NULL,
    ai_credit_costs jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT installation_id_check CHECK (id),
    CONSTRAINT installation_welcome_credits_check CHECK ((welcome_credits >= 0))
);

ALTER TABLE storefront_private.installation OWNER TO storefront_owner;

ALTER TABLE ONLY public.auth_refresh_tokens ALTER COLUMN id SET DEFAULT nextval('public.auth_refresh_tokens_id_seq'::regclass);

ALTER TABLE ONLY public.migrations ALTER COLUMN id SET DEFAULT nextval('public.migrations_id_seq'::regclass);

ALTER TABLE ONLY public.webhook_attempts ALTER COLUMN id SET DEFAULT nextval('public.webhook_attempts_id_seq'::regclass);

ALTER TABLE ONLY public.migrations
    ADD CONSTRAINT "PK_8c82d7f526340ab734260ea46be" PRIMARY KEY (id);

ALTER TABLE ONLY public.ai_images
    ADD CONSTRAINT ai_images_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.auth_flow_states
    ADD CONSTRAINT auth_flow_states_auth_code_hash_key UNIQUE (auth_code_hash);

ALTER TABLE ONLY public.auth_flow_states
    ADD CONSTRAINT auth_flow_states_link_hash_key UNIQUE (link_hash);

ALTER TABLE ONLY public.auth_flow_states
    ADD CONSTRAINT auth_flow_states_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.auth_one_time_tokens
    ADD CONSTRAINT auth_one_time_tokens_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.auth_one_time_tokens
    ADD CONSTRAINT auth_one_time_tokens_token_hash_key UNIQUE (token_hash);

ALTER TABLE ONLY public.auth_one_time_tokens
    ADD CONSTRAINT auth_one_time_tokens_user_id_kind_key UNIQUE (user_id, kind);

ALTER TABLE ONLY public.auth_refresh_tokens
    ADD CONSTRAINT auth_refresh_tokens_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.auth_refresh_tokens
    ADD CONSTRAINT auth_refresh_tokens_token_hash_key UNIQUE (token_hash);

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.credit_accounts
    ADD CONSTRAINT credit_accounts_pkey PRIMARY KEY (store_id);

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_refund_of_key UNIQUE (refund_of);

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT customers_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT customers_user_id_key UNIQUE (user_id);

ALTER TABLE ONLY public.dev_mailbox
    ADD CONSTRAINT dev_mailbox_mail_id_key UNIQUE (mail_id);

ALTER TABLE ONLY public.dev_mailbox
    ADD CONSTRAINT dev_mailbox_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller, key);

ALTER TABLE ONLY public.mail_outbox
    ADD CONSTRAINT mail_outbox_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.merchant_notifications
    ADD CONSTRAINT merchant_notifications_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.order_items
    ADD CONSTRAINT order_items_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_store_id_order_number_key UNIQUE (store_id, order_number);

ALTER TABLE ONLY public.outbox_events
    ADD CONSTRAINT outbox_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.outbox_owed_acks
    ADD CONSTRAINT outbox_owed_acks_pkey PRIMARY KEY (publication_id, subscriber);

ALTER TABLE ONLY public.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.social_accounts
    ADD CONSTRAINT social_accounts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.social_accounts
    ADD CONSTRAINT social_accounts_store_id_platform_key UNIQUE (store_id, platform);

ALTER TABLE ONLY public.social_connect_states
    ADD CONSTRAINT social_connect_states_pkey PRIMARY KEY (state_hash);

ALTER TABLE ONLY public.social_platforms
    ADD CONSTRAINT social_platforms_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.social_post_results
    ADD CONSTRAINT social_post_results_pkey PRIMARY KEY (post_id, platform);

ALTER TABLE ONLY public.social_posts
    ADD CONSTRAINT social_posts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.store_api_keys
    ADD CONSTRAINT store_api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.store_api_keys
    ADD CONSTRAINT store_api_keys_secret_hash_key UNIQUE (secret_hash);

ALTER TABLE ONLY public.store_mail_settings
    ADD CONSTRAINT store_mail_settings_pkey PRIMARY KEY (store_id);

ALTER TABLE ONLY public.store_members
    ADD CONSTRAINT store_members_invite_link_hash_key UNIQUE (invite_link_hash);

ALTER TABLE ONLY public.store_members
    ADD CONSTRAINT store_members_invite_token_hash_key UNIQUE (invite_token_hash);

ALTER TABLE ONLY public.store_members
    ADD CONSTRAINT store_members_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.store_order_counters
    ADD CONSTRAINT store_order_counters_pkey PRIMARY KEY (store_id);

ALTER TABLE ONLY public.stores
    ADD CONSTRAINT stores_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_attempt_key UNIQUE (delivery_id, attempt);

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);

ALTER TABLE ONLY storefront_private.declared_sql
    ADD CONSTRAINT declared_sql_pkey PRIMARY KEY (id);

ALTER TABLE ONLY storefront_private.installation
    ADD CONSTRAINT installation_pkey PRIMARY KEY (id);

CREATE INDEX ai_images_store_idx ON public.ai_images USING btree (store_id, created_at DESC);

CREATE INDEX auth_flow_states_expires_idx ON public.auth_flow_states USING btree (expires_at);

CREATE INDEX auth_one_time_tokens_email_idx ON public.auth_one_time_tokens USING btree (lower(email), kind);

CREATE INDEX auth_refresh_tokens_session_idx ON public.auth_refresh_tokens USING btree (session_id);

CREATE INDEX auth_sessions_user_idx ON public.auth_sessions USING btree (user_id) WHERE (revoked_at IS NULL);

CREATE INDEX credit_ledger_store_idx ON public.credit_ledger USING btree (store_id, created_at DESC, id DESC);

CREATE INDEX credit_ledger_usage_idx ON public.credit_ledger USING btree (store_id, function, created_at) WHERE (kind = 'charge'::text);

CREATE UNIQUE INDEX customers_email_key ON public.customers USING btree (store_id, lower(email));

CREATE INDEX customers_search_idx ON public.customers USING gin (name public.gin_trgm_ops, email public.gin_trgm_ops);

CREATE INDEX customers_store_page_idx ON public.customers USING btree (store_id, created_at DESC, id DESC);

CREATE INDEX dev_mailbox_page_idx ON public.dev_mailbox USING btree (created_at DESC, id DESC);

CREATE INDEX dev_mailbox_recipient_idx ON public.dev_mailbox USING btree (lower(recipient), created_at DESC, id DESC);

CREATE INDEX idempotency_keys_created_idx ON public.idempotency_keys USING btree (created_at);

CREATE INDEX mail_outbox_due_idx ON public.mail_outbox USING btree (next_attempt_at) WHERE (status = 'pending'::text);

CREATE INDEX mail_outbox_finished_idx ON public.mail_outbox USING btree (finished_at) WHERE (status <> 'pending'::text);

CREATE INDEX merchant_notifications_store_idx ON public.merchant_notifications USING btree (store_id, created_at DESC, id DESC);

CREATE INDEX order_items_order_idx ON public.order_items USING btree (order_id, "position");

CREATE INDEX orders_customer_idx ON public.orders USING btree (customer_id, created_at DESC, id DESC);

CREATE INDEX orders_store_page_idx ON public.orders USING btree (store_id, created_at DESC, id DESC);

CREATE INDEX orders_store_status_page_idx ON public.orders USING btree (store_id, status, created_at DESC, id DESC);

CREATE INDEX outbox_events_dispatched_idx ON public.outbox_events USING btree (dispatched_at) WHERE (dispatched_at IS NOT NULL);

CREATE INDEX outbox_events_pending_idx ON public.outbox_events USING btree (created_at) WHERE (dispatched_at IS NULL);

CREATE INDEX outbox_events_store_idx ON public.outbox_events USING btree (store_id, created_at, id);

CREATE INDEX outbox_owed_acks_due_idx ON public.outbox_owed_acks USING btree (due_at);

CREATE INDEX products_store_page_idx ON public.products USING btree (store_id, created_at DESC, id DESC);

CREATE INDEX social_connect_states_expiry_idx ON public.social_connect_states USING btree (expires_at);

CREATE INDEX social_post_results_platform_post_idx ON public.social_post_results USING btree (platform_post_id);

CREATE INDEX social_posts_due_idx ON public.social_posts USING btree (scheduled_at) WHERE (status = ANY (ARRAY['scheduled'::text, 'publishing'::text]));

CREATE INDEX social_posts_store_idx ON public.social_posts USING btree (store_id, created_at DESC, id DESC);

CREATE INDEX store_api_keys_store_idx ON public.store_api_keys USING btree (store_id, created_at DESC, id DESC);

CREATE UNIQUE INDEX store_members_email_key ON public.store_members USING btree (store_id, lower(email));

CREATE INDEX store_members_user_idx ON public.store_members USING btree (user_id) WHERE (status = 'active'::text);

CREATE INDEX stores_owner_idx ON public.stores USING btree (owner_id);

CREATE INDEX stores_page_idx ON public.stores USING btree (created_at DESC, id DESC);

CREATE UNIQUE INDEX users_email_key ON public.users USING btree (lower(email));

CREATE INDEX webhook_deliveries_due_idx ON public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'pending'::text);

CREATE INDEX webhook_deliveries_finished_idx ON public.webhook_deliveries USING btree (updated_at) WHERE (status <> 'pending'::text);

CREATE UNIQUE INDEX webhook_deliveries_once ON public.webhook_deliveries USING btree (event_id, webhook_id) WHERE (redelivery_of IS NULL);

CREATE INDEX webhook_deliveries_parked_idx ON public.webhook_deliveries USING btree (webhook_id) WHERE ((status = 'pending'::text) AND (parked_at IS NOT NULL));

CREATE INDEX webhook_deliveries_redelivery_idx ON public.webhook_deliveries USING btree (redelivery_of) WHERE (redelivery_of IS NOT NULL);

CREATE INDEX webhook_deliveries_webhook_idx ON public.webhook_deliveries USING btree (webhook_id, created_at DESC, id DESC);

CREATE INDEX webhooks_store_idx ON public.webhooks USING btree (store_id, created_at DESC, id DESC);

CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE ON public.credit_ledger FOR EACH ROW EXECUTE FUNCTION public.credit_ledger_append_only();

CREATE TRIGGER merchant_notifications_mail AFTER INSERT ON public.merchant_notifications FOR EACH ROW EXECUTE FUNCTION public.app_mail_merchant_notice();

CREATE TRIGGER order_items_price BEFORE INSERT ON public.order_items FOR EACH ROW EXECUTE FUNCTION public.app_price_order_item();

CREATE CONSTRAINT TRIGGER orders_checked_at_commit AFTER INSERT ON public.orders DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.app_check_order();

CREATE TRIGGER orders_number BEFORE INSERT ON public.orders FOR EACH ROW EXECUTE FUNCTION public.app_number_order();

CREATE TRIGGER outbox_events_notify AFTER INSERT ON public.outbox_events FOR EACH ROW EXECUTE FUNCTION public.outbox_events_notify();

ALTER TABLE ONLY public.ai_images
    ADD CONSTRAINT ai_images_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.auth_flow_states
    ADD CONSTRAINT auth_flow_states_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.auth_one_time_tokens
    ADD CONSTRAINT auth_one_time_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.auth_refresh_tokens
    ADD CONSTRAINT auth_refresh_tokens_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES public.auth_refresh_tokens(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.auth_refresh_tokens
    ADD CONSTRAINT auth_refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.auth_sessions(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.credit_accounts
    ADD CONSTRAINT credit_accounts_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_refund_of_fkey FOREIGN KEY (refund_of) REFERENCES public.credit_ledger(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.credit_ledger
    ADD CONSTRAINT credit_ledger_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.credit_accounts(store_id) ON DELETE CASCADE;

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT customers_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT customers_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.mail_outbox
    ADD CONSTRAINT mail_outbox_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.mail_outbox
    ADD CONSTRAINT mail_outbox_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.merchant_notifications
    ADD CONSTRAINT merchant_notifications_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.order_items
    ADD CONSTRAINT order_items_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.order_items
    ADD CONSTRAINT order_items_product_id_fkey FOREIGN KEY (product_id) REFERENCES public.products(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.order_items
    ADD CONSTRAINT order_items_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customers(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_placed_by_fkey FOREIGN KEY (placed_by) REFERENCES public.users(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.products
    ADD CONSTRAINT products_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.social_accounts
    ADD CONSTRAINT social_accounts_connected_by_fkey FOREIGN KEY (connected_by) REFERENCES public.users(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.social_accounts
    ADD CONSTRAINT social_accounts_platform_fkey FOREIGN KEY (platform) REFERENCES public.social_platforms(id);

ALTER TABLE ONLY public.social_accounts
    ADD CONSTRAINT social_accounts_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.social_connect_states
    ADD CONSTRAINT social_connect_states_platform_fkey FOREIGN KEY (platform) REFERENCES public.social_platforms(id);

ALTER TABLE ONLY public.social_connect_states
    ADD CONSTRAINT social_connect_states_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.social_connect_states
    ADD CONSTRAINT social_connect_states_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.social_post_results
    ADD CONSTRAINT social_post_results_platform_fkey FOREIGN KEY (platform) REFERENCES public.social_platforms(id);

ALTER TABLE ONLY public.social_post_results
    ADD CONSTRAINT social_post_results_post_id_fkey FOREIGN KEY (post_id) REFERENCES public.social_posts(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.social_post_results
    ADD CONSTRAINT social_post_results_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.social_posts
    ADD CONSTRAINT social_posts_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES public.store_api_keys(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.social_posts
    ADD CONSTRAINT social_posts_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.social_posts
    ADD CONSTRAINT social_posts_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.store_api_keys
    ADD CONSTRAINT store_api_keys_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.store_api_keys
    ADD CONSTRAINT store_api_keys_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.store_mail_settings
    ADD CONSTRAINT store_mail_settings_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.store_members
    ADD CONSTRAINT store_members_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES public.users(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.store_members
    ADD CONSTRAINT store_members_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.store_members
    ADD CONSTRAINT store_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.store_order_counters
    ADD CONSTRAINT store_order_counters_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.stores
    ADD CONSTRAINT stores_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES public.users(id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_store_fk FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_redelivery_of_fkey FOREIGN KEY (redelivery_of) REFERENCES public.webhook_deliveries(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_store_id_fkey FOREIGN KEY (store_id) REFERENCES public.stores(id) ON DELETE CASCADE;

ALTER TABLE public.ai_images ENABLE ROW LEVEL SECURITY;

CREATE POLICY ai_images_create ON public.ai_images FOR INSERT TO storefront_rls WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('ai'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY ai_images_system ON public.ai_images TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.auth_flow_states ENABLE ROW LEVEL SECURITY;

CREATE POLICY auth_flow_states_system ON public.auth_flow_states TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.auth_one_time_tokens ENABLE ROW LEVEL SECURITY;

CREATE POLICY auth_one_time_tokens_system ON public.auth_one_time_tokens TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.auth_refresh_tokens ENABLE ROW LEVEL SECURITY;

CREATE POLICY auth_refresh_tokens_system ON public.auth_refresh_tokens TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.auth_sessions ENABLE ROW LEVEL SECURITY;

CREATE POLICY auth_sessions_system ON public.auth_sessions TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.credit_accounts ENABLE ROW LEVEL SECURITY;

CREATE POLICY credit_accounts_read ON public.credit_accounts FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('billing'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY credit_accounts_system ON public.credit_accounts TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.credit_ledger ENABLE ROW LEVEL SECURITY;

CREATE POLICY credit_ledger_read ON public.credit_ledger FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('billing'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY credit_ledger_system ON public.credit_ledger TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.customers ENABLE ROW LEVEL SECURITY;

CREATE POLICY customers_manage ON public.customers TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('customers'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('customers'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY customers_orders_read ON public.customers FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('orders'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY customers_self ON public.customers FOR SELECT TO storefront_rls USING ((user_id = ( SELECT public.app_user_id() AS app_user_id)));

CREATE POLICY customers_self_create ON public.customers FOR INSERT TO storefront_rls WITH CHECK (((user_id = ( SELECT public.app_user_id() AS app_user_id)) AND (store_id = ANY (( SELECT public.app_accessible_store_ids() AS app_accessible_store_ids)::uuid[]))));

CREATE POLICY customers_self_update ON public.customers FOR UPDATE TO storefront_rls USING ((user_id = ( SELECT public.app_user_id() AS app_user_id))) WITH CHECK ((user_id = ( SELECT public.app_user_id() AS app_user_id)));

CREATE POLICY customers_system ON public.customers TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.dev_mailbox ENABLE ROW LEVEL SECURITY;

CREATE POLICY dev_mailbox_admin ON public.dev_mailbox FOR SELECT TO storefront_rls USING ((( SELECT public.app_role() AS app_role) = 'admin'::text));

CREATE POLICY dev_mailbox_system ON public.dev_mailbox TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.idempotency_keys ENABLE ROW LEVEL SECURITY;

CREATE POLICY idempotency_keys_own ON public.idempotency_keys TO storefront_rls USING ((((user_id = ( SELECT public.app_user_id() AS app_user_id)) AND (caller = ('user:'::text || ( SELECT public.app_user_id() AS app_user_id)))) OR ((user_id = ( SELECT public.app_api_key_id() AS app_api_key_id)) AND (caller = ('api_key:'::text || ( SELECT public.app_api_key_id() AS app_api_key_id)))))) WITH CHECK ((((user_id = ( SELECT public.app_user_id() AS app_user_id)) AND (caller = ('user:'::text || ( SELECT public.app_user_id() AS app_user_id)))) OR ((user_id = ( SELECT public.app_api_key_id() AS app_api_key_id)) AND (caller = ('api_key:'::text || ( SELECT public.app_api_key_id() AS app_api_key_id))))));

CREATE POLICY idempotency_keys_system ON public.idempotency_keys TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.mail_outbox ENABLE ROW LEVEL SECURITY;

CREATE POLICY mail_outbox_system ON public.mail_outbox TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.merchant_notifications ENABLE ROW LEVEL SECURITY;

CREATE POLICY merchant_notifications_read ON public.merchant_notifications FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY merchant_notifications_system ON public.merchant_notifications TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.order_items ENABLE ROW LEVEL SECURITY;

CREATE POLICY order_items_customer_place ON public.order_items FOR INSERT TO storefront_rls WITH CHECK ((EXISTS ( SELECT 1
   FROM public.orders o
  WHERE ((o.id = order_items.order_id) AND (o.store_id = order_items.store_id) AND (o.status = 'pending'::text) AND (NOT o.stock_taken) AND (o.xmin = (pg_current_xact_id())::xid) AND (o.created_at = date_trunc('milliseconds'::text, now()))))));

CREATE POLICY order_items_customer_read ON public.order_items FOR SELECT TO storefront_rls USING ((EXISTS ( SELECT 1
   FROM public.orders o
  WHERE (o.id = order_items.order_id))));

CREATE POLICY order_items_manage ON public.order_items TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('orders'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('orders'::text) AS app_store_ids_with)::uuid[]))) AND (EXISTS ( SELECT 1
   FROM public.orders o
  WHERE ((o.id = order_items.order_id) AND (o.store_id = order_items.store_id) AND (o.status = 'pending'::text) AND (NOT o.stock_taken) AND (o.xmin = (pg_current_xact_id())::xid) AND (o.created_at = date_trunc('milliseconds'::text, now())))))));

CREATE POLICY order_items_system ON public.order_items TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.orders ENABLE ROW LEVEL SECURITY;

CREATE POLICY orders_customer_cancel ON public.orders FOR UPDATE TO storefront_rls USING (((customer_id = ANY (( SELECT public.app_customer_ids() AS app_customer_ids)::uuid[])) AND (status = 'pending'::text))) WITH CHECK (((customer_id = ANY (( SELECT public.app_customer_ids() AS app_customer_ids)::uuid[])) AND (status = 'cancelled'::text)));

CREATE POLICY orders_customer_place ON public.orders FOR INSERT TO storefront_rls WITH CHECK (((customer_id = ANY (( SELECT public.app_customer_ids() AS app_customer_ids)::uuid[])) AND (status = 'pending'::text) AND ((customer_id IS NULL) OR (EXISTS ( SELECT 1
   FROM public.customers c
  WHERE ((c.id = orders.customer_id) AND (c.store_id = orders.store_id)))))));

CREATE POLICY orders_customer_read ON public.orders FOR SELECT TO storefront_rls USING ((customer_id = ANY (( SELECT public.app_customer_ids() AS app_customer_ids)::uuid[])));

CREATE POLICY orders_manage ON public.orders TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('orders'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('orders'::text) AS app_store_ids_with)::uuid[]))) AND ((customer_id IS NULL) OR (EXISTS ( SELECT 1
   FROM public.customers c
  WHERE ((c.id = orders.customer_id) AND (c.store_id = orders.store_id)))))));

CREATE POLICY orders_system ON public.orders TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.outbox_events ENABLE ROW LEVEL SECURITY;

CREATE POLICY outbox_events_actor ON public.outbox_events AS RESTRICTIVE FOR INSERT TO storefront_rls WITH CHECK ((NOT (actor IS DISTINCT FROM ( SELECT public.app_actor() AS app_actor))));

CREATE POLICY outbox_events_append ON public.outbox_events FOR INSERT TO storefront_rls WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_staff_store_ids() AS app_staff_store_ids)::uuid[])) OR ((event = ANY (ARRAY['order.created'::text, 'order.updated'::text, 'order.cancelled'::text, 'inventory.updated'::text, 'customer.created'::text, 'customer.updated'::text])) AND (store_id = ANY (( SELECT public.app_accessible_store_ids() AS app_accessible_store_ids)::uuid[])))));

CREATE POLICY outbox_events_read ON public.outbox_events FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY outbox_events_system ON public.outbox_events TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.outbox_owed_acks ENABLE ROW LEVEL SECURITY;

CREATE POLICY outbox_owed_acks_system ON public.outbox_owed_acks TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.products ENABLE ROW LEVEL SECURITY;

CREATE POLICY products_active_read ON public.products FOR SELECT TO storefront_rls USING (((status = 'active'::text) AND (store_id = ANY (( SELECT public.app_accessible_store_ids() AS app_accessible_store_ids)::uuid[]))));

CREATE POLICY products_catalog ON public.products TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('catalog'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('catalog'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY products_system ON public.products TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.social_accounts ENABLE ROW LEVEL SECURITY;

CREATE POLICY social_accounts_manage ON public.social_accounts TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY social_accounts_system ON public.social_accounts TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.social_connect_states ENABLE ROW LEVEL SECURITY;

CREATE POLICY social_connect_states_create ON public.social_connect_states FOR INSERT TO storefront_rls WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[]))) AND (user_id = ( SELECT public.app_user_id() AS app_user_id))));

CREATE POLICY social_connect_states_system ON public.social_connect_states TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.social_platforms ENABLE ROW LEVEL SECURITY;

CREATE POLICY social_platforms_system ON public.social_platforms TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.social_post_results ENABLE ROW LEVEL SECURITY;

CREATE POLICY social_post_results_manage ON public.social_post_results TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[]))) AND (EXISTS ( SELECT 1
   FROM public.social_posts p
  WHERE ((p.id = social_post_results.post_id) AND (p.store_id = social_post_results.store_id))))));

CREATE POLICY social_post_results_system ON public.social_post_results TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.social_posts ENABLE ROW LEVEL SECURITY;

CREATE POLICY social_posts_author ON public.social_posts AS RESTRICTIVE FOR INSERT TO storefront_rls WITH CHECK (((NOT (created_by IS DISTINCT FROM ( SELECT public.app_user_id() AS app_user_id))) AND (NOT (api_key_id IS DISTINCT FROM ( SELECT public.app_api_key_id() AS app_api_key_id)))));

CREATE POLICY social_posts_manage ON public.social_posts TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('social'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY social_posts_system ON public.social_posts TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.store_api_keys ENABLE ROW LEVEL SECURITY;

CREATE POLICY store_api_keys_create ON public.store_api_keys FOR INSERT TO storefront_rls WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))) AND (created_by = ( SELECT public.app_user_id() AS app_user_id))));

CREATE POLICY store_api_keys_read ON public.store_api_keys FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))));

CREATE POLICY store_api_keys_revoke ON public.store_api_keys FOR UPDATE TO storefront_rls USING ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))) AND (revoked_at IS NULL))) WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))) AND (revoked_at IS NOT NULL)));

CREATE POLICY store_api_keys_system ON public.store_api_keys TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.store_mail_settings ENABLE ROW LEVEL SECURITY;

CREATE POLICY store_mail_settings_manage ON public.store_mail_settings TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))));

CREATE POLICY store_mail_settings_system ON public.store_mail_settings TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.store_members ENABLE ROW LEVEL SECURITY;

CREATE POLICY store_members_change ON public.store_members FOR UPDATE TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))));

CREATE POLICY store_members_invite ON public.store_members FOR INSERT TO storefront_rls WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))) AND (status = 'invited'::text) AND (user_id IS NULL) AND (accepted_at IS NULL)));

CREATE POLICY store_members_read ON public.store_members FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[])) OR (user_id = ( SELECT public.app_user_id() AS app_user_id))));

CREATE POLICY store_members_remove ON public.store_members FOR DELETE TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_managed_store_ids() AS app_managed_store_ids)::uuid[]))));

CREATE POLICY store_members_system ON public.store_members TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.store_order_counters ENABLE ROW LEVEL SECURITY;

CREATE POLICY store_order_counters_system ON public.store_order_counters TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.stores ENABLE ROW LEVEL SECURITY;

CREATE POLICY stores_change ON public.stores FOR UPDATE TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (owner_id = ( SELECT public.app_user_id() AS app_user_id)))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (owner_id = ( SELECT public.app_user_id() AS app_user_id))));

CREATE POLICY stores_create ON public.stores FOR INSERT TO storefront_rls WITH CHECK (((owner_id = ( SELECT public.app_user_id() AS app_user_id)) AND (( SELECT public.app_role() AS app_role) = ANY (ARRAY['merchant'::text, 'admin'::text]))));

CREATE POLICY stores_delete ON public.stores FOR DELETE TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (owner_id = ( SELECT public.app_user_id() AS app_user_id))));

CREATE POLICY stores_read ON public.stores FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (owner_id = ( SELECT public.app_user_id() AS app_user_id)) OR (id = ANY (( SELECT public.app_accessible_store_ids() AS app_accessible_store_ids)::uuid[]))));

CREATE POLICY stores_system ON public.stores TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.users ENABLE ROW LEVEL SECURITY;

CREATE POLICY users_self ON public.users FOR SELECT TO storefront_rls USING (((id = ( SELECT public.app_user_id() AS app_user_id)) OR (( SELECT public.app_role() AS app_role) = 'admin'::text)));

CREATE POLICY users_self_update ON public.users FOR UPDATE TO storefront_rls USING ((id = ( SELECT public.app_user_id() AS app_user_id))) WITH CHECK ((id = ( SELECT public.app_user_id() AS app_user_id)));

CREATE POLICY users_system ON public.users TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.webhook_attempts ENABLE ROW LEVEL SECURITY;

CREATE POLICY webhook_attempts_read ON public.webhook_attempts FOR SELECT TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY webhook_attempts_system ON public.webhook_attempts TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.webhook_deliveries ENABLE ROW LEVEL SECURITY;

CREATE POLICY webhook_deliveries_manage ON public.webhook_deliveries TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK ((((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[]))) AND (EXISTS ( SELECT 1
   FROM public.webhooks w
  WHERE ((w.id = webhook_deliveries.webhook_id) AND (w.store_id = webhook_deliveries.store_id))))));

CREATE POLICY webhook_deliveries_system ON public.webhook_deliveries TO storefront_system USING (true) WITH CHECK (true);

ALTER TABLE public.webhooks ENABLE ROW LEVEL SECURITY;

CREATE POLICY webhooks_manage ON public.webhooks TO storefront_rls USING (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[])))) WITH CHECK (((( SELECT public.app_role() AS app_role) = 'admin'::text) OR (store_id = ANY (( SELECT public.app_store_ids_with('webhooks'::text) AS app_store_ids_with)::uuid[]))));

CREATE POLICY webhooks_system ON public.webhooks TO storefront_system USING (true) WITH CHECK (true);

GRANT ALL ON SCHEMA public TO storefront_owner;

GRANT USAGE ON SCHEMA storefront_private TO storefront_system;

REVOKE ALL ON FUNCTION pg_catalog.lo_creat(integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.lo_create(oid) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.lo_from_bytea(oid, bytea) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.lo_get(oid) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.lo_open(oid, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.lo_put(oid, bigint, bytea) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.lo_unlink(oid) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_lock(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_lock(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_lock_shared(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_lock_shared(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_xact_lock(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_xact_lock(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_xact_lock_shared(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_advisory_xact_lock_shared(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_cancel_backend(integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_terminate_backend(pid integer, timeout bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_lock(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_lock(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_lock_shared(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_lock_shared(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_xact_lock(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_xact_lock(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_xact_lock_shared(bigint) FROM PUBLIC;

REVOKE ALL ON FUNCTION pg_catalog.pg_try_advisory_xact_lock_shared(integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION public.app_accept_invitation(p_token_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_accept_invitation(p_token_hash bytea) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_accessible_store_ids() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_accessible_store_ids() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_actor() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_actor() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_api_key_id() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_api_key_id() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_authorize(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean, p_bind boolean) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_authorize_request(p_session uuid, p_proof text, p_store uuid, p_resource text, p_record uuid, p_only_store boolean) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_bind_api_key(p_key uuid, p_proof text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_bind_api_key(p_key uuid, p_proof text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_bind_request(p_session uuid, p_proof text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_bind_request(p_session uuid, p_proof text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_charge_credits(p_store uuid, p_function text, p_reference text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_charge_credits(p_store uuid, p_function text, p_reference text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_check_order() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_check_order() TO storefront_rls;
GRANT ALL ON FUNCTION public.app_check_order() TO storefront_owner;

REVOKE ALL ON FUNCTION public.app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_complete_connect(p_state_hash text, p_completion text, p_platform_account_id text, p_username text, p_display_name text, p_access_token_sealed text, p_refresh_token_sealed text, p_token_expires_at timestamp with time zone, p_scopes text[]) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_context_valid() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_context_valid() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_cover(p_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_cover(p_id uuid) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_customer_ids() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_customer_ids() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_grant_credits(p_store uuid, p_amount integer, p_reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_grant_credits(p_store uuid, p_amount integer, p_reason text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_invite_member(p_store uuid, p_email text, p_permissions text[], p_token_hash bytea, p_link_hash bytea, p_ttl_hours integer, p_invited_by uuid, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_mail_merchant_notice() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_mail_merchant_notice() TO storefront_rls;
GRANT ALL ON FUNCTION public.app_mail_merchant_notice() TO storefront_owner;

REVOKE ALL ON FUNCTION public.app_managed_store_ids() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_managed_store_ids() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_move_stock(p_product uuid, p_delta integer, p_active_only boolean) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_number_order() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_number_order() TO storefront_rls;
GRANT ALL ON FUNCTION public.app_number_order() TO storefront_owner;

REVOKE ALL ON FUNCTION public.app_open_credit_account(p_store uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_open_credit_account(p_store uuid) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_price_order_item() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_price_order_item() TO storefront_rls;
GRANT ALL ON FUNCTION public.app_price_order_item() TO storefront_owner;

REVOKE ALL ON FUNCTION public.app_refund_credits(p_charge uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_refund_credits(p_charge uuid) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_return_order_stock(p_order uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_return_order_stock(p_order uuid) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_role() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_role() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_sandbox_post(p_platform_post_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_sandbox_post(p_platform_post_id text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_search_customers(p_store uuid, p_pattern text, p_before_created timestamp with time zone, p_before_id uuid, p_limit integer) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_session_id() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_session_id() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_staff_store_ids() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_staff_store_ids() TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_start_connect(p_state_hash text, p_browser_secret text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_start_connect(p_state_hash text, p_browser_secret text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_store_ids_with(p_permission text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_store_ids_with(p_permission text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_take_connect_state(p_state_hash text, p_browser_secret text, p_completion text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_take_order_stock(p_order uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_take_order_stock(p_order uuid) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_touch_api_key(p_hash text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_touch_api_key(p_hash text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.app_user_id() FROM PUBLIC;
GRANT ALL ON FUNCTION public.app_user_id() TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_accept_invitation_link(p_link_hash bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_accept_invitation_link(p_link_hash bytea) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_change_email(p_new_email text, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_change_email(p_new_email text, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text, p_store uuid, p_confirmed boolean, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_end_sessions(p_scope text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_end_sessions(p_scope text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_flow_exchange(p_code_hash bytea, p_verifier text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_flow_exchange(p_code_hash bytea, p_verifier text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_google_account(p_email text, p_full_name text, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_google_account(p_email text, p_full_name text, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_any_account boolean, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_password_candidate(p_email text, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_password_candidate(p_email text, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION public.auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text) TO storefront_rls;

REVOKE ALL ON FUNCTION public.credit_ledger_append_only() FROM PUBLIC;

REVOKE ALL ON FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.api_key_context_mac(p_key text, p_store text, p_permissions text) TO storefront_system;

REVOKE ALL ON FUNCTION storefront_private.api_key_context_valid() FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.api_key_context_valid() TO storefront_system;

REVOKE ALL ON FUNCTION storefront_private.clean_session() FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.clean_session() TO storefront_system;

REVOKE ALL ON FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.context_mac(p_user text, p_role text, p_session text) TO storefront_system;

REVOKE ALL ON FUNCTION storefront_private.hmac(p_message text) FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.hmac(p_message text) TO storefront_system;

REVOKE ALL ON FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.ticket_valid(p_purpose text, p_subject text, p_ticket text) TO storefront_system;

REVOKE ALL ON FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) FROM PUBLIC;
GRANT ALL ON FUNCTION storefront_private.user_of_session(p_session uuid, p_proof text) TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.ai_images TO storefront_system;
GRANT INSERT ON TABLE public.ai_images TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.auth_flow_states TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.auth_one_time_tokens TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.auth_refresh_tokens TO storefront_system;

GRANT SELECT,USAGE ON SEQUENCE public.auth_refresh_tokens_id_seq TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.auth_sessions TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.credit_accounts TO storefront_system;
GRANT SELECT ON TABLE public.credit_accounts TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.credit_ledger TO storefront_system;
GRANT SELECT ON TABLE public.credit_ledger TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.customers TO storefront_system;
GRANT SELECT,INSERT ON TABLE public.customers TO storefront_rls;

GRANT UPDATE(name) ON TABLE public.customers TO storefront_rls;

GRANT UPDATE(email) ON TABLE public.customers TO storefront_rls;

GRANT UPDATE(phone) ON TABLE public.customers TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.customers TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.dev_mailbox TO storefront_system;
GRANT SELECT ON TABLE public.dev_mailbox TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.idempotency_keys TO storefront_system;
GRANT SELECT,INSERT,DELETE ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(route) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(fingerprint) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(state) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(created_at) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(response_status) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(response_headers) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT UPDATE(response_body) ON TABLE public.idempotency_keys TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.mail_outbox TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.merchant_notifications TO storefront_system;
GRANT SELECT ON TABLE public.merchant_notifications TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.order_items TO storefront_system;
GRANT SELECT,INSERT ON TABLE public.order_items TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.orders TO storefront_system;
GRANT SELECT ON TABLE public.orders TO storefront_rls;

GRANT INSERT(store_id) ON TABLE public.orders TO storefront_rls;

GRANT INSERT(order_number) ON TABLE public.orders TO storefront_rls;

GRANT INSERT(customer_id) ON TABLE public.orders TO storefront_rls;

GRANT INSERT(status),UPDATE(status) ON TABLE public.orders TO storefront_rls;

GRANT INSERT(currency) ON TABLE public.orders TO storefront_rls;

GRANT INSERT(total) ON TABLE public.orders TO storefront_rls;

GRANT INSERT(placed_by) ON TABLE public.orders TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.orders TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.outbox_events TO storefront_system;
GRANT INSERT ON TABLE public.outbox_events TO storefront_rls;

GRANT SELECT(id) ON TABLE public.outbox_events TO storefront_rls;

GRANT SELECT(store_id) ON TABLE public.outbox_events TO storefront_rls;

GRANT SELECT(event) ON TABLE public.outbox_events TO storefront_rls;

GRANT SELECT(data) ON TABLE public.outbox_events TO storefront_rls;

GRANT SELECT(created_at) ON TABLE public.outbox_events TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.outbox_owed_acks TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.products TO storefront_system;
GRANT SELECT,INSERT,DELETE ON TABLE public.products TO storefront_rls;

GRANT UPDATE(name) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(description) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(price) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(compare_price) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(category) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(seo_keywords) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(status) ON TABLE public.products TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.products TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.social_accounts TO storefront_system;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.social_accounts TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.social_connect_states TO storefront_system;

GRANT INSERT(state_hash) ON TABLE public.social_connect_states TO storefront_rls;

GRANT INSERT(store_id) ON TABLE public.social_connect_states TO storefront_rls;

GRANT INSERT(user_id) ON TABLE public.social_connect_states TO storefront_rls;

GRANT INSERT(platform) ON TABLE public.social_connect_states TO storefront_rls;

GRANT INSERT(redirect_url) ON TABLE public.social_connect_states TO storefront_rls;

GRANT INSERT(code_verifier_sealed) ON TABLE public.social_connect_states TO storefront_rls;

GRANT INSERT(expires_at) ON TABLE public.social_connect_states TO storefront_rls;

GRANT SELECT,INSERT ON TABLE public.social_platforms TO storefront_system;

GRANT UPDATE(display_name) ON TABLE public.social_platforms TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.social_post_results TO storefront_system;
GRANT SELECT,INSERT,UPDATE ON TABLE public.social_post_results TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.social_posts TO storefront_system;
GRANT SELECT,INSERT,UPDATE ON TABLE public.social_posts TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.store_api_keys TO storefront_system;

GRANT SELECT(id) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(store_id),INSERT(store_id) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(name),INSERT(name) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(prefix),INSERT(prefix) ON TABLE public.store_api_keys TO storefront_rls;

GRANT INSERT(secret_hash) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(permissions),INSERT(permissions) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(created_by),INSERT(created_by) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(created_at) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(expires_at),INSERT(expires_at) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(last_used_at) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT(revoked_at),UPDATE(revoked_at) ON TABLE public.store_api_keys TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.store_mail_settings TO storefront_system;
GRANT SELECT,INSERT ON TABLE public.store_mail_settings TO storefront_rls;

GRANT UPDATE(team_invitation) ON TABLE public.store_mail_settings TO storefront_rls;

GRANT UPDATE(webhook_disabled) ON TABLE public.store_mail_settings TO storefront_rls;

GRANT UPDATE(social_post_failed) ON TABLE public.store_mail_settings TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.store_mail_settings TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.store_members TO storefront_system;
GRANT DELETE ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(id) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(store_id),INSERT(store_id) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(email),INSERT(email) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(user_id) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(permissions),INSERT(permissions),UPDATE(permissions) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(status) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(invite_expires_at),INSERT(invite_expires_at) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(invited_by),INSERT(invited_by) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(accepted_at) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(created_at) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT(updated_at),UPDATE(updated_at) ON TABLE public.store_members TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.store_order_counters TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.stores TO storefront_system;
GRANT SELECT,INSERT,DELETE ON TABLE public.stores TO storefront_rls;

GRANT UPDATE(name) ON TABLE public.stores TO storefront_rls;

GRANT UPDATE(currency) ON TABLE public.stores TO storefront_rls;

GRANT UPDATE(default_language) ON TABLE public.stores TO storefront_rls;

GRANT UPDATE(timezone) ON TABLE public.stores TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.stores TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.users TO storefront_system;

GRANT SELECT(id) ON TABLE public.users TO storefront_rls;

GRANT SELECT(email) ON TABLE public.users TO storefront_rls;

GRANT SELECT(role) ON TABLE public.users TO storefront_rls;

GRANT SELECT(full_name),UPDATE(full_name) ON TABLE public.users TO storefront_rls;

GRANT SELECT(provider) ON TABLE public.users TO storefront_rls;

GRANT SELECT(store_id) ON TABLE public.users TO storefront_rls;

GRANT SELECT(created_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(updated_at),UPDATE(updated_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(last_sign_in_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(email_confirmed_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(confirmation_sent_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(recovery_sent_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(new_email) ON TABLE public.users TO storefront_rls;

GRANT SELECT(email_change_sent_at) ON TABLE public.users TO storefront_rls;

GRANT SELECT(user_metadata),UPDATE(user_metadata) ON TABLE public.users TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.webhook_attempts TO storefront_system;
GRANT SELECT ON TABLE public.webhook_attempts TO storefront_rls;

GRANT SELECT,USAGE ON SEQUENCE public.webhook_attempts_id_seq TO storefront_system;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.webhook_deliveries TO storefront_system;
GRANT SELECT,INSERT ON TABLE public.webhook_deliveries TO storefront_rls;

GRANT UPDATE(status) ON TABLE public.webhook_deliveries TO storefront_rls;

GRANT UPDATE(next_attempt_at) ON TABLE public.webhook_deliveries TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.webhook_deliveries TO storefront_rls;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.webhooks TO storefront_system;
GRANT SELECT,INSERT,DELETE ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(url) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(events) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(status) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(disabled_reason) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(secret_sealed) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(secret_hint) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(previous_secret_sealed) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(previous_secret_expires_at) ON TABLE public.webhooks TO storefront_rls;

GRANT UPDATE(updated_at) ON TABLE public.webhooks TO storefront_rls;

GRANT SELECT ON TABLE storefront_private.installation TO storefront_system;

GRANT UPDATE(welcome_credits) ON TABLE storefront_private.installation TO storefront_system;

GRANT UPDATE(ai_hourly_limits) ON TABLE storefront_private.installation TO storefront_system;

GRANT UPDATE(ai_credit_costs) ON TABLE storefront_private.installation TO storefront_system;

ALTER DEFAULT PRIVILEGES FOR ROLE storefront_owner IN SCHEMA public GRANT SELECT,USAGE ON SEQUENCES  TO storefront_system;

ALTER DEFAULT PRIVILEGES FOR ROLE storefront_owner IN SCHEMA public GRANT SELECT,INSERT,DELETE,UPDATE ON TABLES  TO storefront_system;

ALTER DEFAULT PRIVILEGES FOR ROLE storefront_owner REVOKE ALL ON FUNCTIONS  FROM PUBLIC;
