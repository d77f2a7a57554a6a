import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';
import { MAIL_TEMPLATES, STORE_NOTICES } from '../templates.js';

const ADMIN = `(SELECT app_role()) = 'admin'`;
const MANAGED = `(${ADMIN} OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))`;
const ENQUEUE = 'app_enqueue_mail(text, text, uuid, uuid, jsonb, text, text)';
const NOTICE = 'app_mail_merchant_notice()';
const list = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/** Row-level security forced, nothing for requests unless granted, every row for the system (as the least-privilege migration does). */
async function closeTable(db: QueryRunner, table: string): Promise<void> {
  await db.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
  await db.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
  await db.query(`REVOKE ALL ON ${table} FROM PUBLIC, ${REQUEST_ROLE}`);
  await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${SYSTEM_ROLE}`);
  await db.query(`CREATE POLICY ${table}_system ON ${table} TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`);
}

/**
 * The mail outbox: every e-mail is a row written in the transaction of the change that causes it
 * (an account e-mail with the token it carries, an invitation with the member row, a merchant notice
 * with its notification), and the worker's mail relay sends it after commit, with retries. Requests
 * cannot write it: they enqueue through `app_enqueue_mail`, which needs a ticket only the API makes,
 * so SQL injected into a request cannot send mail. Merchant notices are enqueued by a trigger on
 * `merchant_notifications`, in the statement that writes the notification. Without SMTP the relay
 * delivers into `dev_mailbox`, which only the admin may read. `store_mail_settings` turns the store
 * notices off per store (owners and the admin).
 */
export class Mail1763801720000 implements MigrationInterface {
  name = 'Mail1763801720000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE mail_outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        template text NOT NULL CHECK (template IN (${list(MAIL_TEMPLATES)})),
        recipient text NOT NULL,
        store_id uuid REFERENCES stores(id) ON DELETE CASCADE,
        user_id uuid REFERENCES users(id) ON DELETE CASCADE,
        language text NOT NULL DEFAULT 'en',
        data jsonb NOT NULL DEFAULT '{}',
        secret_sealed text,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_error text,
        message_id text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz
      )`);
    await db.query(`CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE status = 'pending'`);
    await db.query(`CREATE INDEX mail_outbox_finished_idx ON mail_outbox (finished_at) WHERE status <> 'pending'`);
    await db.query(`
      CREATE TABLE dev_mailbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        mail_id uuid NOT NULL UNIQUE,
        template text NOT NULL,
        recipient text NOT NULL,
        sender text NOT NULL,
        subject text NOT NULL,
        text_body text NOT NULL,
        html_body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX dev_mailbox_page_idx ON dev_mailbox (created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX dev_mailbox_recipient_idx ON dev_mailbox (lower(recipient), created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE store_mail_settings (
        store_id uuid PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
        ${STORE_NOTICES.map((notice) => `${notice} boolean NOT NULL DEFAULT true`).join(',\n        ')},
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    for (const table of ['mail_outbox', 'dev_mailbox', 'store_mail_settings']) await closeTable(db, table);
    await db.query(`GRANT SELECT ON dev_mailbox TO ${REQUEST_ROLE}`);
    await db.query(`CREATE POLICY dev_mailbox_admin ON dev_mailbox FOR SELECT TO ${REQUEST_ROLE} USING (${ADMIN})`);
    await db.query(`GRANT SELECT, INSERT, UPDATE (${STORE_NOTICES.join(', ')}, updated_at) ON store_mail_settings TO ${REQUEST_ROLE}`);
    await db.query(
      `CREATE POLICY store_mail_settings_manage ON store_mail_settings FOR ALL TO ${REQUEST_ROLE} USING ${MANAGED} WITH CHECK ${MANAGED}`,
    );

    // A message from the API: `p_ticket` is its HMAC over the template and the recipient, at most a
    // minute old. The language and the store's name come from the store (a customer's own store when
    // only the user is named). Answers the row's id, or null when the store turned that notice off.
    await db.query(`
      CREATE FUNCTION app_enqueue_mail(p_template text, p_recipient text, p_store uuid, p_user uuid, p_data jsonb, p_secret text,
                                       p_ticket text) RETURNS uuid
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        store uuid := p_store;
        store_language text;
        store_title text;
        enabled boolean;
        created uuid;
      BEGIN
        IF NOT ${PRIVATE_SCHEMA}.ticket_valid('mail', p_template || ':' || lower(p_recipient), p_ticket) THEN
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
      END $$`);
    await handOverDefiner(db, ENQUEUE);

    // The store owner hears of what a notification says, in the same statement: a notification
    // rolled back mails nothing, one committed cannot lose its e-mail.
    await db.query(`
      CREATE FUNCTION app_mail_merchant_notice() RETURNS trigger
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
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
      END $$`);
    // Made before the function goes to the system role: the migrating owner may not use it after.
    await db.query(
      `CREATE TRIGGER merchant_notifications_mail AFTER INSERT ON merchant_notifications FOR EACH ROW EXECUTE FUNCTION ${NOTICE}`,
    );
    await handOverDefiner(db, NOTICE);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER merchant_notifications_mail ON merchant_notifications`);
    await dropDefiners(db, [ENQUEUE, NOTICE]);
    await db.query(`DROP TABLE store_mail_settings`);
    await db.query(`DROP TABLE dev_mailbox`);
    await db.query(`DROP TABLE mail_outbox`);
  }
}
