import pg from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OWNER_ROLE, SYSTEM_ROLE } from '@app/core';
import { PkceAndMagicLinks1763802000000 } from '../libs/auth/src/migrations/1763802000000-pkce-and-magic-links.js';
import { MagicLinkMail1763802000100 } from '../libs/mail/src/migrations/1763802000100-magic-link-mail.js';
import { startApp } from './support/app.js';
import { createPrivateDatabase } from './support/database.js';

const MAGIC_MAIL = `INSERT INTO mail_outbox (template, recipient) VALUES ('magic_link', 'mig@example.com')`;

/**
 * The PKCE and magic-link migrations go down and up again on a database holding their rows: down
 * drops the flow states, the magic-link tokens and unsent magic-link e-mails with what made room for
 * them, and up brings all of it back.
 */
describe('migrations: PKCE flow states and magic links', () => {
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  /** The test's own reads and writes (a superuser: no row-level security). */
  let client: pg.Client;
  /** The migrations' connection: the owner role, as the app's start runs them. */
  let owner: pg.Client;
  const query = async (sql: string, parameters?: unknown[]) => (await owner.query(sql, parameters)).rows;
  const runner = { query } as QueryRunner;
  const step = async (migration: MigrationInterface, direction: 'up' | 'down') => {
    await owner.query('BEGIN');
    try {
      await migration[direction](runner);
      await owner.query('COMMIT');
    } catch (error) {
      await owner.query('ROLLBACK');
      throw error;
    }
  };
  const exists = async (sql: string) => {
    const { rows } = await client.query<{ found: boolean }>(`SELECT (${sql}) AS found`);
    return rows[0].found;
  };

  beforeAll(async () => {
    database = await createPrivateDatabase('pkce_migration');
    await (await startApp({ DATABASE_URL: database.url })).close();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    owner = new pg.Client({ connectionString: database.url, options: `-c role=${OWNER_ROLE}` });
    await owner.connect();
  });
  afterAll(async () => {
    await owner?.end();
    await client?.end();
    await database?.drop();
  });

  it('down removes what up added, rows included; up again restores it', async () => {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO users (email, role, provider, email_confirmed_at)
       VALUES ('mig@example.com', 'merchant', 'email', now()) RETURNING id`,
    );
    const userId = rows[0].id;
    await client.query(
      `INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
       VALUES ($1, 'magiclink', 'mig@example.com', '\\x01', '\\x02', now() + interval '1 hour')`,
      [userId],
    );
    await client.query(
      `INSERT INTO auth_flow_states (auth_code_hash, user_id, authentication_method, code_challenge,
                                     code_challenge_method, expires_at)
       VALUES ('\\x03', $1, 'google', repeat('a', 43), 'plain', now() + interval '5 minutes')`,
      [userId],
    );
    await client.query(MAGIC_MAIL);

    await step(new MagicLinkMail1763802000100(), 'down');
    await step(new PkceAndMagicLinks1763802000000(), 'down');
    expect(await exists(`to_regclass('auth_flow_states') IS NOT NULL`)).toBe(false);
    expect(await exists(`to_regproc('auth_flow_exchange') IS NOT NULL`)).toBe(false);
    expect(await exists(`to_regproc('auth_issue_magic_link') IS NOT NULL`)).toBe(false);
    expect(await exists(`EXISTS (SELECT 1 FROM auth_one_time_tokens WHERE kind = 'magiclink')`)).toBe(false);
    expect(await exists(`EXISTS (SELECT 1 FROM mail_outbox WHERE template = 'magic_link')`)).toBe(false);
    await expect(client.query(MAGIC_MAIL)).rejects.toThrow(/mail_outbox_template_check/);

    // As the app's start does: CREATE on the schema lent to the system role, the definers' new owner.
    await client.query(`GRANT CREATE ON SCHEMA public TO ${SYSTEM_ROLE}`);
    try {
      await step(new PkceAndMagicLinks1763802000000(), 'up');
      await step(new MagicLinkMail1763802000100(), 'up');
    } finally {
      await client.query(`REVOKE CREATE ON SCHEMA public FROM ${SYSTEM_ROLE}`);
    }
    expect(await exists(`to_regclass('auth_flow_states') IS NOT NULL`)).toBe(true);
    expect(await exists(`to_regproc('auth_flow_exchange') IS NOT NULL`)).toBe(true);
    await client.query(MAGIC_MAIL);
    const forced = await client.query(`SELECT relforcerowsecurity FROM pg_class WHERE relname = 'auth_flow_states'`);
    expect(forced.rows[0].relforcerowsecurity).toBe(true);
  });
});
