-- Mail: the outbox of e-mails (added only through app_enqueue_mail, with the API's ticket), the
-- development mailbox (the admin reads it) and each store's mail settings (its owners). A merchant
-- notification is mailed by the trigger on webhooks' merchant_notifications.

-- Applied after the migrations, with every lib's sql/ files, in one transaction (docs/architecture.md § The database).

-- SECURITY DEFINER functions belong to the system role (docs/security.md): made as it.
SET ROLE storefront_system;

-- A message from the API: `p_ticket` is its HMAC over the template and the recipient, at most a
-- minute old. The language and the store's name come from the store (a customer's own store when
-- only the user is named). Answers the row's id, or null when the store turned that notice off.
CREATE OR REPLACE FUNCTION app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) RETURNS uuid
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
REVOKE ALL ON FUNCTION app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text, p_ticket text) TO storefront_rls;

-- The store owner hears of what a notification says, in the same statement: a notification
-- rolled back mails nothing, one committed cannot lose its e-mail.
CREATE OR REPLACE FUNCTION app_mail_merchant_notice() RETURNS trigger
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
REVOKE ALL ON FUNCTION app_mail_merchant_notice() FROM PUBLIC, storefront_owner, storefront_rls;
GRANT EXECUTE ON FUNCTION app_mail_merchant_notice() TO storefront_rls;
-- Its trigger is created by the owner role, which needs EXECUTE for that.
GRANT EXECUTE ON FUNCTION app_mail_merchant_notice() TO storefront_owner;

RESET ROLE;

ALTER TABLE store_mail_settings ENABLE ROW LEVEL SECURITY;
ALTER TABLE store_mail_settings FORCE ROW LEVEL SECURITY;
ALTER TABLE mail_outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE mail_outbox FORCE ROW LEVEL SECURITY;
ALTER TABLE dev_mailbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE dev_mailbox FORCE ROW LEVEL SECURITY;

REVOKE ALL ON TABLE dev_mailbox FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE dev_mailbox TO storefront_system;
GRANT SELECT ON TABLE dev_mailbox TO storefront_rls;

REVOKE ALL ON TABLE mail_outbox FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE mail_outbox TO storefront_system;

REVOKE ALL ON TABLE store_mail_settings FROM PUBLIC, storefront_rls, storefront_system;
GRANT SELECT, INSERT, DELETE, UPDATE ON TABLE store_mail_settings TO storefront_system;
GRANT SELECT, INSERT ON TABLE store_mail_settings TO storefront_rls;
GRANT UPDATE (team_invitation, webhook_disabled, social_post_failed, updated_at) ON TABLE store_mail_settings TO storefront_rls;

DROP POLICY IF EXISTS dev_mailbox_admin ON dev_mailbox;
CREATE POLICY dev_mailbox_admin ON dev_mailbox FOR SELECT TO storefront_rls
  USING ((SELECT app_role()) = 'admin');

DROP POLICY IF EXISTS dev_mailbox_system ON dev_mailbox;
CREATE POLICY dev_mailbox_system ON dev_mailbox TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS mail_outbox_system ON mail_outbox;
CREATE POLICY mail_outbox_system ON mail_outbox TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP POLICY IF EXISTS store_mail_settings_manage ON store_mail_settings;
CREATE POLICY store_mail_settings_manage ON store_mail_settings TO storefront_rls
  USING ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))
  WITH CHECK ((SELECT app_role()) = 'admin' OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]));

DROP POLICY IF EXISTS store_mail_settings_system ON store_mail_settings;
CREATE POLICY store_mail_settings_system ON store_mail_settings TO storefront_system
  USING (true)
  WITH CHECK (true);

DROP TRIGGER IF EXISTS merchant_notifications_mail ON merchant_notifications;
CREATE TRIGGER merchant_notifications_mail AFTER INSERT ON merchant_notifications FOR EACH ROW EXECUTE FUNCTION app_mail_merchant_notice();
