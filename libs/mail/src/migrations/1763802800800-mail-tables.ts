import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mail's tables: the e-mail outbox, the development mailbox and each store's mail settings.
 *
 * Tables, columns, constraints and indexes only: their functions, triggers, row-level security,
 * policies and grants are the current state declared in ../sql/, applied after the migrations.
 */
export class MailTables1763802800800 implements MigrationInterface {
  name = 'MailTables1763802800800';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE dev_mailbox (
          id uuid DEFAULT gen_random_uuid() NOT NULL,
          mail_id uuid NOT NULL,
          template text NOT NULL,
          recipient text NOT NULL,
          sender text NOT NULL,
          subject text NOT NULL,
          text_body text NOT NULL,
          html_body text NOT NULL,
          created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
      )`);
    await db.query(`
      CREATE TABLE mail_outbox (
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
          CONSTRAINT mail_outbox_status_check CHECK ((status = ANY
            (ARRAY['pending'::text, 'sent'::text, 'failed'::text]))),
          CONSTRAINT mail_outbox_template_check CHECK ((template = ANY
            (ARRAY['confirm_signup'::text, 'reset_password'::text, 'confirm_email_change'::text, 'email_changed'::text,
              'team_invitation'::text, 'webhook_disabled'::text, 'social_post_failed'::text, 'magic_link'::text])))
      )`);
    await db.query(`
      CREATE TABLE store_mail_settings (
          store_id uuid NOT NULL,
          team_invitation boolean DEFAULT true NOT NULL,
          webhook_disabled boolean DEFAULT true NOT NULL,
          social_post_failed boolean DEFAULT true NOT NULL,
          updated_at timestamp with time zone DEFAULT now() NOT NULL
      )`);
    await db.query(`
      ALTER TABLE dev_mailbox
          ADD CONSTRAINT dev_mailbox_mail_id_key UNIQUE (mail_id)`);
    await db.query(`
      ALTER TABLE dev_mailbox
          ADD CONSTRAINT dev_mailbox_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE mail_outbox
          ADD CONSTRAINT mail_outbox_pkey PRIMARY KEY (id)`);
    await db.query(`
      ALTER TABLE store_mail_settings
          ADD CONSTRAINT store_mail_settings_pkey PRIMARY KEY (store_id)`);
    await db.query(`CREATE INDEX dev_mailbox_page_idx ON dev_mailbox USING btree (created_at DESC, id DESC)`);
    await db.query(
      `CREATE INDEX dev_mailbox_recipient_idx ON dev_mailbox USING btree (lower(recipient), created_at DESC, id DESC)`,
    );
    await db.query(
      `CREATE INDEX mail_outbox_due_idx ON mail_outbox USING btree (next_attempt_at) WHERE (status = 'pending'::text)`,
    );
    await db.query(
      `CREATE INDEX mail_outbox_finished_idx ON mail_outbox ` +
        `USING btree (finished_at) WHERE (status <> 'pending'::text)`,
    );
    await db.query(`
      ALTER TABLE mail_outbox
          ADD CONSTRAINT mail_outbox_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE mail_outbox
          ADD CONSTRAINT mail_outbox_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE`);
    await db.query(`
      ALTER TABLE store_mail_settings
          ADD CONSTRAINT store_mail_settings_store_id_fkey FOREIGN KEY (store_id) REFERENCES stores(id)
            ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE store_mail_settings, mail_outbox, dev_mailbox CASCADE`);
  }
}
