import { DataSource } from 'typeorm';
import { mailConfig } from '@app/mail';
import {
  merchantWithStore,
  PUBLIC_KEY,
  signUp,
  startApp,
  TEST_ADMIN,
  uniqueEmail,
  type TestApp,
} from './support/app.js';
import { asRequest, createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

/**
 * Without SMTP_URL (a fresh `npm start`), e-mails go to the development mailbox, which the admin
 * reads at GET /functions/v1/dev-mailbox; and the mail tables are closed to requests at the
 * database level: only the admin reads the mailbox, nobody writes the outbox but through the API's
 * ticket, and a store's mail settings are its owner's. On a database of its own: a mail relay
 * delivers every pending e-mail of its database, and other files run beside this one.
 */
describe('the development mailbox and the mail tables under row-level security', () => {
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let adminToken: string;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const mailbox = (token: string, query = '') => api.request('GET', `/functions/v1/dev-mailbox${query}`, { token });

  beforeAll(async () => {
    database = await createPrivateDatabase('mail_box');
    api = await startApp({
      DATABASE_URL: database.url,
      MAIL_RELAY: 'true',
      MAIL_POLL_INTERVAL_MS: '100',
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      AUTH_MAIL_LIMIT_PER_IP: '1000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}dev-mailbox:`,
    });
    const admin = await api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    adminToken = admin.body.access_token;
  });
  afterAll(async () => {
    await api?.close();
    await database?.drop();
  });

  it('delivers a recovery e-mail into the mailbox, where the admin reads it and its link works', async () => {
    const email = uniqueEmail('mailbox');
    await signUp(api, {}, email);
    expect(
      (await api.request('POST', '/auth/v1/recover', { headers: { apikey: PUBLIC_KEY }, body: { email } })).status,
    ).toBe(200);
    const listed = await until(async () => {
      const answer = await mailbox(adminToken, `?to=${encodeURIComponent(email.toUpperCase())}`);
      return answer.body.data?.length === 1 && answer;
    }, 'the recovery e-mail in the development mailbox');
    const [message] = listed.body.data;
    expect(message).toMatchObject({ to: email, template: 'reset_password', subject: 'Reset your password' });
    expect(message.from).toBe(api.settings.get(mailConfig).MAIL_FROM);
    expect(message.html).toContain('<html lang="en">');
    const link = /(http\S+\/auth\/v1\/verify\?\S+)/.exec(message.text)![1];
    const followed = await fetch(`${api.url}${new URL(link).pathname}${new URL(link).search}`, { redirect: 'manual' });
    expect(followed.status).toBe(302);
    const fragment = new URLSearchParams(new URL(followed.headers.get('location')!).hash.slice(1));
    expect(fragment.get('type')).toBe('recovery');
    expect(
      (
        await api.request('GET', '/auth/v1/user', {
          token: fragment.get('access_token')!,
          headers: { apikey: PUBLIC_KEY },
        })
      ).body.email,
    ).toBe(email);
    // Delivered once, and its outbox row is sent with nothing secret left.
    const rows = await db().query(`SELECT status, secret_sealed FROM mail_outbox WHERE lower(recipient) = lower($1)`, [
      email,
    ]);
    expect(rows).toEqual([{ status: 'sent', secret_sealed: null }]);
  });

  it('pages the mailbox for the admin and refuses everyone else', async () => {
    const first = await mailbox(adminToken, '?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.next_cursor === null || typeof first.body.next_cursor === 'string').toBe(true);
    const merchant = await signUp(api);
    const refused = await mailbox(merchant.access_token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await mailbox(adminToken, '?to=not-an-address')).status).toBe(400);
  });

  it('keeps the mail tables closed to requests: the mailbox is the admin’s, the outbox nobody’s', async () => {
    const merchant = await merchantWithStore(api, 'Mail RLS A');
    const other = await merchantWithStore(api, 'Mail RLS B');
    await asRequest(api, merchant.token, async (q) => {
      expect(await q('SELECT * FROM dev_mailbox')).toEqual([]);
      await expect(q('SELECT * FROM mail_outbox')).rejects.toThrow(/permission denied/);
    });
    await asRequest(api, merchant.token, (q) =>
      expect(
        q(`INSERT INTO mail_outbox (template, recipient) VALUES ('reset_password', 'victim@example.com')`),
      ).rejects.toThrow(/permission denied/),
    );
    // The enqueue function needs the API's ticket.
    await asRequest(api, merchant.token, (q) =>
      expect(
        q(
          `SELECT app_enqueue_mail('reset_password', 'victim@example.com', ` +
            `NULL, NULL, '{}', NULL, '1700000000000.' || repeat('0', 64))`,
        ),
      ).rejects.toThrow(/invalid ticket/),
    );
    await asRequest(api, merchant.token, (q) =>
      expect(q('SELECT * FROM auth_one_time_tokens')).rejects.toThrow(/permission denied/),
    );
    await asRequest(api, adminToken, async (q) =>
      expect((await q('SELECT id FROM dev_mailbox')).length).toBeGreaterThan(0),
    );

    // A store's mail settings are its owner's: the other store's are invisible and unchangeable.
    expect(
      (
        await api.request('PATCH', `/functions/v1/stores/${other.storeId}/mail-settings`, {
          token: other.token,
          body: { webhook_disabled: false },
        })
      ).status,
    ).toBe(200);
    await asRequest(api, merchant.token, async (q) => {
      expect(await q('SELECT * FROM store_mail_settings WHERE store_id = $1', [other.storeId])).toEqual([]);
      // TypeORM answers an UPDATE as [rows, count].
      expect(
        await q('UPDATE store_mail_settings SET webhook_disabled = true WHERE store_id = $1 RETURNING store_id', [
          other.storeId,
        ]),
      ).toEqual([[], 0]);
    });
    await asRequest(api, merchant.token, (q) =>
      expect(
        q('INSERT INTO store_mail_settings (store_id, webhook_disabled) VALUES ($1, true)', [other.storeId]),
      ).rejects.toThrow(/row-level security/),
    );
    const [settings] = await db().query('SELECT webhook_disabled FROM store_mail_settings WHERE store_id = $1', [
      other.storeId,
    ]);
    expect(settings.webhook_disabled).toBe(false);
    const own = await api.request('GET', `/functions/v1/stores/${merchant.storeId}/mail-settings`, {
      token: merchant.token,
    });
    expect(own.body).toEqual({
      success: true,
      mail_settings: { team_invitation: true, webhook_disabled: true, social_post_failed: true },
    });
  });

  it(
    'lets a user change its own name and metadata only, and ' +
      'nothing that makes an account (role, address, password)',
    async () => {
      const me = await signUp(api);
      const someone = await signUp(api);
      await asRequest(api, me.access_token, async (q) => {
        // TypeORM answers an UPDATE as [rows, count].
        expect(await q(`UPDATE users SET full_name = 'Renamed' WHERE id = $1 RETURNING id`, [someone.user.id])).toEqual(
          [[], 0],
        );
        expect(await q(`UPDATE users SET full_name = 'Me' WHERE id = $1 RETURNING id`, [me.user.id])).toEqual([
          [{ id: me.user.id }],
          1,
        ]);
      });
      for (const change of [
        `role = 'admin'`,
        `email = 'taken@example.com'`,
        `password_hash = 'x'`,
        `email_confirmed_at = now()`,
      ]) {
        await asRequest(api, me.access_token, (q) =>
          expect(q(`UPDATE users SET ${change} WHERE id = $1`, [me.user.id])).rejects.toThrow(/permission denied/),
        );
      }
      // The functions that change credentials want the API's ticket.
      for (const call of [
        `SELECT auth_set_password('x', NULL, '1700000000000.' || repeat('0', 64))`,
        `SELECT auth_change_email('new@example.com', '1700000000000.' || repeat('0', 64))`,
        `SELECT auth_issue_token('${someone.user.email}', 'recovery', ` +
          `'\\x00', '\\x00', 3600, '1700000000000.' || repeat('0', 64))`,
      ]) {
        await asRequest(api, me.access_token, (q) => expect(q(call)).rejects.toThrow(/invalid ticket/));
      }
      const [row] = await db().query('SELECT full_name, role FROM users WHERE id = $1', [someone.user.id]);
      expect(row).toEqual({ full_name: null, role: 'merchant' });
    },
  );
});
