import { PkceAndMagicLinks1763802000000 } from '../libs/auth/src/migrations/1763802000000-pkce-and-magic-links.js';
import { MagicLinkMail1763802000100 } from '../libs/mail/src/migrations/1763802000100-magic-link-mail.js';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

const MAGIC_MAIL = `INSERT INTO mail_outbox (template, recipient) VALUES ('magic_link', 'mig@example.com')`;

/**
 * The PKCE and magic-link migrations go down and up again on a database holding their rows: down
 * drops the flow states, the magic-link tokens and unsent magic-link e-mails with what made room for
 * them, and up brings all of it back.
 */
describe('migrations: PKCE flow states and magic links', () => {
  let db: MigratedDatabase;
  const exists = async (sql: string) => {
    const { rows } = await db.client.query<{ found: boolean }>(`SELECT (${sql}) AS found`);
    return rows[0].found;
  };

  beforeAll(async () => {
    db = await migratedDatabase('pkce_migration');
  });
  afterAll(() => db?.close());

  it('down removes what up added, rows included; up again restores it', async () => {
    const { rows } = await db.client.query<{ id: string }>(
      `INSERT INTO users (email, role, provider, email_confirmed_at)
       VALUES ('mig@example.com', 'merchant', 'email', now()) RETURNING id`,
    );
    const userId = rows[0].id;
    await db.client.query(
      `INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
       VALUES ($1, 'magiclink', 'mig@example.com', '\\x01', '\\x02', now() + interval '1 hour')`,
      [userId],
    );
    await db.client.query(
      `INSERT INTO auth_flow_states (auth_code_hash, user_id, authentication_method, code_challenge,
                                     code_challenge_method, expires_at)
       VALUES ('\\x03', $1, 'google', repeat('a', 43), 'plain', now() + interval '5 minutes')`,
      [userId],
    );
    await db.client.query(MAGIC_MAIL);

    await db.step(new MagicLinkMail1763802000100(), 'down');
    await db.step(new PkceAndMagicLinks1763802000000(), 'down');
    expect(await exists(`to_regclass('auth_flow_states') IS NOT NULL`)).toBe(false);
    expect(await exists(`to_regproc('auth_flow_exchange') IS NOT NULL`)).toBe(false);
    expect(await exists(`to_regproc('auth_issue_magic_link') IS NOT NULL`)).toBe(false);
    expect(await exists(`EXISTS (SELECT 1 FROM auth_one_time_tokens WHERE kind = 'magiclink')`)).toBe(false);
    expect(await exists(`EXISTS (SELECT 1 FROM mail_outbox WHERE template = 'magic_link')`)).toBe(false);
    await expect(db.client.query(MAGIC_MAIL)).rejects.toThrow(/mail_outbox_template_check/);

    // Each step lends the system role, the definers' new owner, CREATE on the schema, as the app's start does.
    await db.step(new PkceAndMagicLinks1763802000000(), 'up');
    await db.step(new MagicLinkMail1763802000100(), 'up');
    expect(await exists(`to_regclass('auth_flow_states') IS NOT NULL`)).toBe(true);
    expect(await exists(`to_regproc('auth_flow_exchange') IS NOT NULL`)).toBe(true);
    await db.client.query(MAGIC_MAIL);
    const forced = await db.client.query(`SELECT relforcerowsecurity FROM pg_class WHERE relname = 'auth_flow_states'`);
    expect(forced.rows[0].relforcerowsecurity).toBe(true);
  });
});
