import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SYSTEM_ROLE } from '@app/core';

const ACCOUNT = ['confirm_signup', 'reset_password', 'confirm_email_change', 'email_changed'];
const BEFORE = [...ACCOUNT, 'team_invitation', 'webhook_disabled'];
const list = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');
const constraint = (templates: readonly string[]) =>
  `ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_template_check,
     ADD CONSTRAINT mail_outbox_template_check CHECK (template IN (${list(templates)}))`;

/** The outbox takes the e-mail of POST /auth/v1/otp: `magic_link` (a sign-in link and code). */
export class MagicLinkMail1763802000100 implements MigrationInterface {
  name = 'MagicLinkMail1763802000100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(constraint([...BEFORE, 'social_post_failed', 'magic_link']));
  }

  /** Magic-link e-mails not sent yet are dropped (their links would not work any more either). */
  async down(db: QueryRunner): Promise<void> {
    await db.query(`SET ROLE ${SYSTEM_ROLE}`);
    try {
      await db.query(`DELETE FROM mail_outbox WHERE template = 'magic_link'`);
    } finally {
      await db.query('RESET ROLE');
    }
    await db.query(constraint([...BEFORE, 'social_post_failed']));
  }
}
