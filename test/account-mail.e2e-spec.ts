import { DataSource } from 'typeorm';
import { codeIn, FakeSmtpServer, verifyLinkIn } from './fakes/smtp-server.js';
import { WebhookReceiver } from './fakes/webhook-receiver.js';
import { httpConfig } from '@app/core';
import { PUBLIC_KEY, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { createPrivateDatabase, SYSTEM_DATA_SOURCE } from './support/database.js';
import { until } from './support/wait.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new horse';
const WELCOME = 'http://localhost:5173/welcome';
const MAIL_FROM = 'Storefront Tests <no-reply@mail.storefront.test>';

/**
 * The account e-mails and merchant notices on a real SMTP conversation: the app (e-mail confirmation
 * on, its mail relay on) talks SMTP to a fake server of the test's own on 127.0.0.1, every message is
 * parsed with mailparser, and its links are followed as a browser would. On a database of its own: a
 * mail relay sends every pending e-mail of its database, and other files run beside this one.
 */
describe('account e-mails over SMTP', () => {
  const smtp = new FakeSmtpServer();
  const receiver = new WebhookReceiver();
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let receiverUrl: string;
  const db = () => api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
  const auth = (method: string, path: string, body?: unknown, token?: string) =>
    api.request(method, `/auth/v1${path}`, { headers: { apikey: PUBLIC_KEY }, body, token });
  const signIn = (email: string, password = PASSWORD) =>
    auth('POST', '/token?grant_type=password', { email, password });
  /**
   * A link followed by a browser that does not follow redirects: where it is sent, and the fragment's
   * values. Links point at PUBLIC_BASE_URL (here the default, localhost:3000): the test app's port stands in.
   */
  const follow = async (link: string) => {
    const url = new URL(link);
    expect(url.origin).toBe(api.settings.get(httpConfig).baseUrl);
    const answer = await fetch(`${api.url}${url.pathname}${url.search}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    return { location, fragment: Object.fromEntries(new URLSearchParams(location.hash.slice(1))) };
  };
  /** The outbox rows of an address (as the system sees them). */
  const outboxOf = (
    address: string,
  ): Promise<{ id: string; template: string; status: string; attempts: number; last_error: string | null }[]> =>
    db().query(
      'SELECT id, template, status, attempts, last_error FROM ' +
        'mail_outbox WHERE lower(recipient) = lower($1) ORDER BY created_at',
      [address],
    );
  /** Nothing more will go to `address`: its outbox rows are all sent (so a missing e-mail is really missing). */
  const settled = (address: string) =>
    until(
      async () => (await outboxOf(address)).every((row) => row.status === 'sent'),
      `every e-mail to ${address} sent`,
    );

  /** A confirmed account, through its confirmation e-mail's code. */
  const confirmedAccount = async (label: string) => {
    const email = uniqueEmail(label);
    expect((await auth('POST', '/signup', { email, password: PASSWORD })).status).toBe(200);
    const [mail] = await smtp.waitFor(email);
    const verified = await auth('POST', '/verify', { type: 'signup', email, token: codeIn(mail) });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    return { email, session: verified.body as { access_token: string; refresh_token: string; user: { id: string } } };
  };

  beforeAll(async () => {
    await smtp.start();
    receiverUrl = await receiver.start();
    database = await createPrivateDatabase('mail_smtp');
    api = await startApp({
      DATABASE_URL: database.url,
      AUTH_CONFIRM_EMAIL: 'true',
      MAIL_RELAY: 'true',
      SMTP_URL: smtp.url,
      MAIL_FROM,
      MAIL_POLL_INTERVAL_MS: '100',
      MAIL_RETRY_DELAYS_MS: '300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300',
      MAIL_SMTP_TIMEOUT_MS: '5000',
      AUTH_MAIL_LIMIT_PER_IP: '1000',
      AUTH_VERIFY_LIMIT_PER_IP: '1000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      JOB_SWEEP_INTERVAL_MS: '1000',
      LOST_JOB_AFTER_MS: '2000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}account-mail:`,
    });
  });
  afterAll(async () => {
    await api?.close();
    await smtp.stop();
    await receiver.stop();
    await database?.drop();
  });

  it('sign up → confirmation e-mail → link → signed in; the password alone is refused until then', async () => {
    const email = uniqueEmail('confirm');
    const signedUp = await auth('POST', `/signup?redirect_to=${encodeURIComponent(WELCOME)}`, {
      email,
      password: PASSWORD,
      data: { full_name: 'Ada' },
    });
    expect(signedUp.status).toBe(200);
    // GoTrue's shape with confirmation on: the user, no session.
    expect(signedUp.body.access_token).toBeUndefined();
    expect(signedUp.body).toMatchObject({ email, email_confirmed_at: null, user_metadata: { full_name: 'Ada' } });
    expect(signedUp.body.confirmation_sent_at).toEqual(expect.any(String));

    const early = await signIn(email);
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ code: 400, error_code: 'email_not_confirmed', msg: 'Email not confirmed' });
    // A wrong password says nothing about confirmation.
    expect((await signIn(email, 'not the password')).body.error_code).toBe('invalid_credentials');

    const [mail] = await smtp.waitFor(email);
    expect(mail.subject).toBe('Confirm your e-mail address');
    expect(mail.template).toBe('confirm_signup');
    expect(mail.parsed.from?.value).toEqual([{ name: 'Storefront Tests', address: 'no-reply@mail.storefront.test' }]);
    expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@mail\.storefront\.test>$/);
    const link = verifyLinkIn(mail);
    expect(new URL(link).searchParams.get('type')).toBe('signup');
    expect(new URL(link).searchParams.get('redirect_to')).toBe(WELCOME);
    // The HTML body carries the same link and code as the text.
    expect(mail.html).toContain(link.replace(/&/g, '&amp;'));
    expect(mail.html).toContain(codeIn(mail));

    const { location, fragment } = await follow(link);
    expect(`${location.origin}${location.pathname}`).toBe(WELCOME);
    expect(fragment).toMatchObject({ token_type: 'bearer', expires_in: '3600', type: 'signup' });
    const me = await auth('GET', '/user', undefined, fragment.access_token);
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
    expect(me.body.email_confirmed_at).toEqual(expect.any(String));

    // Single use: the same link again is an error in the fragment, not a session.
    const again = await follow(link);
    expect(again.fragment).toMatchObject({ error: 'access_denied', error_code: 'otp_expired' });
    expect(again.fragment.access_token).toBeUndefined();

    const signedIn = await signIn(email);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(signedUp.body.id);

    // Signing up the confirmed address again looks like a new sign-up and mails nothing.
    const repeat = await auth('POST', '/signup', { email, password: 'someone else entirely' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.email).toBe(email);
    expect(repeat.body.id).not.toBe(signedUp.body.id);
    expect(repeat.body.access_token).toBeUndefined();
    expect((await signIn(email, 'someone else entirely')).body.error_code).toBe('invalid_credentials');
    await settled(email);
    expect(smtp.to(email)).toHaveLength(1);
  });

  it('confirms with the 6-digit code; a wrong or expired code is otp_expired; resend replaces the code', async () => {
    const email = uniqueEmail('code');
    expect((await auth('POST', '/signup', { email, password: PASSWORD })).status).toBe(200);
    const [first] = await smtp.waitFor(email);
    const firstCode = codeIn(first);

    const wrong = await auth('POST', '/verify', {
      type: 'signup',
      email,
      token: firstCode === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ code: 403, error_code: 'otp_expired', msg: 'Token has expired or is invalid' });

    expect(await auth('POST', '/resend', { type: 'signup', email })).toMatchObject({ status: 200, body: {} });
    const [, second] = await smtp.waitFor(email, 2);
    expect(second.template).toBe('confirm_signup');
    // The first code stopped working when the second was sent.
    if (codeIn(second) !== firstCode) {
      expect((await auth('POST', '/verify', { type: 'signup', email, token: firstCode })).status).toBe(403);
    }
    // An expired code does not work either.
    await db().query(
      `UPDATE auth_one_time_tokens SET expires_at = now() - interval '1 second' WHERE lower(email) = lower($1)`,
      [email],
    );
    expect((await auth('POST', '/verify', { type: 'signup', email, token: codeIn(second) })).status).toBe(403);

    expect((await auth('POST', '/resend', { type: 'signup', email })).status).toBe(200);
    const [, , third] = await smtp.waitFor(email, 3);
    const verified = await auth('POST', '/verify', { type: 'signup', email, token: codeIn(third) });
    expect(verified.status).toBe(200);
    expect(verified.body.user.email).toBe(email);
    expect(verified.body.access_token.split('.')).toHaveLength(3);

    // Resend for a confirmed or unknown address: 200, nothing sent.
    expect((await auth('POST', '/resend', { type: 'signup', email })).status).toBe(200);
    const nobody = uniqueEmail('nobody');
    expect((await auth('POST', '/resend', { type: 'signup', email: nobody })).status).toBe(200);
    await settled(email);
    expect(smtp.to(email)).toHaveLength(3);
    expect(await outboxOf(nobody)).toEqual([]);
  });

  it(
    'an unconfirmed address signed up again takes the ' + 'new password; whoever signed up first gets nothing',
    async () => {
      const email = uniqueEmail('squatted');
      expect((await auth('POST', '/signup', { email, password: 'the squatter password' })).status).toBe(200);
      expect((await auth('POST', '/signup', { email, password: PASSWORD })).status).toBe(200);
      // The relay may send the two confirmations in either order: only the second sign-up's code works.
      const statuses: number[] = [];
      for (const mail of await smtp.waitFor(email, 2)) {
        statuses.push((await auth('POST', '/verify', { type: 'signup', email, token: codeIn(mail) })).status);
      }
      expect(statuses.sort()).toEqual([200, 403]);
      expect((await signIn(email, 'the squatter password')).body.error_code).toBe('invalid_credentials');
      expect((await signIn(email)).status).toBe(200);
    },
  );

  it(
    'forgot password → recovery e-mail → new password: ' + 'the old one is refused and the other sessions end',
    async () => {
      const { email } = await confirmedAccount('forgot');
      const other = await signIn(email);
      const another = await signIn(email);
      expect(other.status).toBe(200);

      // Unknown or known, the answer is the same; only the known address gets an e-mail.
      const stranger = uniqueEmail('stranger');
      expect(await auth('POST', '/recover', { email: stranger })).toMatchObject({ status: 200, body: {} });
      expect(
        await auth('POST', `/recover?redirect_to=${encodeURIComponent(WELCOME)}`, { email: email.toUpperCase() }),
      ).toMatchObject({
        status: 200,
        body: {},
      });
      const mails = await smtp.waitFor(email, 2);
      const mail = mails[1];
      expect(mail.subject).toBe('Reset your password');
      expect(mail.template).toBe('reset_password');
      const { fragment } = await follow(verifyLinkIn(mail));
      expect(fragment.type).toBe('recovery');

      // The recovery session signed in just now: it may set a password without the old one.
      const changed = await auth('PUT', '/user', { password: NEW_PASSWORD }, fragment.access_token);
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body.email).toBe(email);

      expect((await signIn(email)).body.error_code).toBe('invalid_credentials');
      expect((await signIn(email, NEW_PASSWORD)).status).toBe(200);
      // The sessions from before the reset are over, their refresh tokens too; the recovery session goes on.
      for (const session of [other.body, another.body]) {
        expect((await auth('GET', '/user', undefined, session.access_token)).status).toBe(401);
        expect(
          (await auth('POST', '/token?grant_type=refresh_token', { refresh_token: session.refresh_token })).status,
        ).toBe(400);
      }
      expect((await auth('GET', '/user', undefined, fragment.access_token)).status).toBe(200);
      // The link worked once.
      expect((await follow(verifyLinkIn(mail))).fragment.error_code).toBe('otp_expired');

      await settled(stranger);
      expect(smtp.to(stranger)).toEqual([]);
      expect(await outboxOf(stranger)).toEqual([]);
    },
  );

  it('a session that did not sign in recently needs the current password to set a new one', async () => {
    const { email, session } = await confirmedAccount('secure');
    await db().query(`UPDATE auth_sessions SET created_at = now() - interval '2 days' WHERE user_id = $1`, [
      session.user.id,
    ]);
    const stale = await auth('PUT', '/user', { password: NEW_PASSWORD }, session.access_token);
    expect(stale.status).toBe(400);
    expect(stale.body.error_code).toBe('reauthentication_needed');
    // Not even whether a guess is the current password: the stale session learns nothing.
    expect((await auth('PUT', '/user', { password: PASSWORD }, session.access_token)).body.error_code).toBe(
      'reauthentication_needed',
    );
    const wrong = await auth(
      'PUT',
      '/user',
      { password: NEW_PASSWORD, current_password: 'not it at all' },
      session.access_token,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error_code).toBe('invalid_credentials');
    const same = await auth('PUT', '/user', { password: PASSWORD, current_password: PASSWORD }, session.access_token);
    expect(same.status).toBe(422);
    expect(same.body.error_code).toBe('same_password');
    const short = await auth('PUT', '/user', { password: 'short', current_password: PASSWORD }, session.access_token);
    expect(short.body.error_code).toBe('weak_password');
    // Nothing changed by the refusals.
    expect((await signIn(email)).status).toBe(200);

    const right = await auth(
      'PUT',
      '/user',
      { password: NEW_PASSWORD, current_password: PASSWORD },
      session.access_token,
    );
    expect(right.status).toBe(200);
    expect((await signIn(email, NEW_PASSWORD)).status).toBe(200);
  });

  it('change e-mail → confirmation on the new address → the address changes and the old one is told', async () => {
    const { email, session } = await confirmedAccount('mover');
    const newEmail = uniqueEmail('moved');
    const taken = (await confirmedAccount('taken')).email;
    expect((await auth('PUT', '/user', { email: taken }, session.access_token)).body.error_code).toBe('email_exists');

    const asked = await auth(
      'PUT',
      `/user?redirect_to=${encodeURIComponent(WELCOME)}`,
      { email: newEmail, data: { plan: 'pro' } },
      session.access_token,
    );
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(asked.body).toMatchObject({ email, new_email: newEmail, user_metadata: { plan: 'pro' } });
    expect(asked.body.email_change_sent_at).toEqual(expect.any(String));
    // Not yet: the old address still signs in, the new one does not.
    expect((await signIn(email)).status).toBe(200);
    expect((await signIn(newEmail)).body.error_code).toBe('invalid_credentials');

    const [confirmation] = await smtp.waitFor(newEmail);
    expect(confirmation.subject).toBe('Confirm your new e-mail address');
    expect(confirmation.text).toContain(email);
    const { fragment } = await follow(verifyLinkIn(confirmation));
    expect(fragment.type).toBe('email_change');
    const me = await auth('GET', '/user', undefined, fragment.access_token);
    expect(me.body).toMatchObject({ email: newEmail, user_metadata: { plan: 'pro' } });
    expect(me.body.new_email).toBeUndefined();

    const notices = await smtp.waitFor(email, 2);
    const notice = notices.find((mail) => mail.template === 'email_changed')!;
    expect(notice.subject).toBe('Your e-mail address was changed');
    expect(notice.text).toContain(`from ${email} to ${newEmail}`);
    expect((await signIn(newEmail)).status).toBe(200);
    expect((await signIn(email)).body.error_code).toBe('invalid_credentials');
  });

  it(
    'invite → invitation e-mail in the store language → link → a ' +
      'team member of the store; the answered invite_token is no link',
    async () => {
      const owner = await confirmedAccount('inviter');
      const token = owner.session.access_token;
      const store = await api.request('POST', '/functions/v1/stores', {
        token,
        body: { name: 'Boutique Fougère', default_language: 'fr' },
      });
      const storeId = store.body.store.id as string;
      const invitee = uniqueEmail('invitee');
      const invited = await api.request('POST', `/functions/v1/stores/${storeId}/members`, {
        token,
        body: { email: invitee, permissions: ['catalog'], redirect_to: WELCOME },
      });
      expect(invited.status).toBe(201);
      expect(invited.body.invite_token).toEqual(expect.any(String));

      const [mail] = await smtp.waitFor(invitee);
      expect(mail.template).toBe('team_invitation');
      expect(mail.subject).toBe('Vous êtes invité à rejoindre Boutique Fougère');
      expect(mail.text).toContain(owner.email);
      expect(mail.text).toContain('catalog');
      const link = verifyLinkIn(mail);
      expect(new URL(link).searchParams.get('type')).toBe('invite');
      expect(link).not.toContain(invited.body.invite_token);
      // The token the merchant holds does not sign anyone in.
      expect((await auth('POST', '/verify', { type: 'invite', token_hash: invited.body.invite_token })).status).toBe(
        403,
      );

      const { fragment, location } = await follow(link);
      expect(`${location.origin}${location.pathname}`).toBe(WELCOME);
      expect(fragment.type).toBe('invite');
      const stores = await api.request('GET', '/functions/v1/stores', { token: fragment.access_token });
      expect(stores.body.data.map((s: { id: string }) => s.id)).toEqual([storeId]);
      const members = await api.request('GET', `/functions/v1/stores/${storeId}/members`, { token });
      expect(members.body.data).toEqual([
        expect.objectContaining({ email: invitee, status: 'active', permissions: ['catalog'] }),
      ]);
      // The new team member sets a password (signed in just now) and uses it.
      expect((await auth('PUT', '/user', { password: NEW_PASSWORD }, fragment.access_token)).status).toBe(200);
      const member = await signIn(invitee, NEW_PASSWORD);
      expect(member.status).toBe(200);
      expect(member.body.user.role).toBe('team_member');
      expect((await follow(link)).fragment.error_code).toBe('otp_expired');

      // With the store's invitation e-mails off, the invitation is answered and not mailed.
      const off = await api.request('PATCH', `/functions/v1/stores/${storeId}/mail-settings`, {
        token,
        body: { team_invitation: false },
      });
      expect(off.body).toEqual({
        success: true,
        mail_settings: { team_invitation: false, webhook_disabled: true, social_post_failed: true },
      });
      const quiet = uniqueEmail('quiet-invitee');
      const silent = await api.request('POST', `/functions/v1/stores/${storeId}/members`, {
        token,
        body: { email: quiet, permissions: [] },
      });
      expect(silent.status).toBe(201);
      expect(silent.body.invite_token).toEqual(expect.any(String));
      expect(await outboxOf(quiet)).toEqual([]);
    },
  );

  it("a disabled webhook mails the store's owner once; a failed scheduled post too, unless turned off", async () => {
    const owner = await confirmedAccount('hooked');
    const token = owner.session.access_token;
    const storeId = (await api.request('POST', '/functions/v1/stores', { token, body: { name: 'Hooked Goods' } })).body
      .store.id as string;
    const hook = await api.request('POST', '/functions/v1/webhooks/register', {
      token,
      body: { store_id: storeId, url: `${receiverUrl}/gone/mailed`, events: ['order.created'] },
    });
    expect(hook.status).toBe(201);
    expect(
      (await api.request('POST', `/functions/v1/webhooks/${hook.body.webhook.id}/test`, { token })).status,
    ).toBeLessThan(300);

    const mails = await smtp.waitFor(owner.email, 2);
    const notice = mails.find((mail) => mail.template === 'webhook_disabled')!;
    expect(notice.subject).toBe('A webhook of Hooked Goods was disabled');
    expect(notice.text).toContain(`${receiverUrl}/gone/mailed`);
    expect(notice.text).toContain('410 Gone');
    const notifications = await api.request('GET', `/functions/v1/notifications?store_id=${storeId}`, { token });
    expect(notifications.body.data.map((n: { kind: string }) => n.kind)).toEqual(['webhook.disabled']);
    await settled(owner.email);
    expect(smtp.to(owner.email).filter((mail) => mail.template === 'webhook_disabled')).toHaveLength(1);

    // A scheduled post's failure notice (written as the scheduled-post worker writes it), mailed the same way.
    const failure = {
      post_id: '4f0d3c1e-0000-4000-8000-000000000001',
      failed: [{ platform: 'x', code: 'rate_limited', message: 'Too many requests' }],
    };
    await db().query(
      `INSERT INTO merchant_notifications (store_id, kind, message, data) VALUES ` +
        `($1, 'social_post_failed', 'A scheduled post could not be published to x', $2)`,
      [storeId, JSON.stringify(failure)],
    );
    const [postMail] = (await smtp.waitFor(owner.email, 3)).filter((mail) => mail.template === 'social_post_failed');
    expect(postMail.subject).toBe('A scheduled post of Hooked Goods was not published');
    expect(postMail.text).toContain('- x: Too many requests');

    // Turned off for the store: the notification is written, no e-mail.
    expect(
      (
        await api.request('PATCH', `/functions/v1/stores/${storeId}/mail-settings`, {
          token,
          body: { social_post_failed: false },
        })
      ).status,
    ).toBe(200);
    await db().query(
      `INSERT INTO merchant_notifications (store_id, kind, message, ` +
        `data) VALUES ($1, 'social_post_failed', 'again', $2)`,
      [storeId, JSON.stringify(failure)],
    );
    await settled(owner.email);
    expect((await outboxOf(owner.email)).filter((row) => row.template === 'social_post_failed')).toHaveLength(1);
  });

  it(
    'SMTP down for a while, then refusing with 451: every ' + 'e-mail arrives once it is back, none lost, none twice',
    async () => {
      const accounts = await Promise.all(['down-a', 'down-b', 'down-c'].map((label) => confirmedAccount(label)));
      await smtp.stop();
      for (const { email } of accounts) expect((await auth('POST', '/recover', { email })).status).toBe(200);
      // Each e-mail is tried and fails (connection refused) more than once while the server is away.
      await until(async () => {
        const rows = (await Promise.all(accounts.map(({ email }) => outboxOf(email))))
          .flat()
          .filter((row) => row.template === 'reset_password');
        return (
          rows.length === 3 &&
          rows.every((row) => row.status === 'pending' && row.attempts >= 2 && row.last_error !== null)
        );
      }, 'three recovery e-mails tried at least twice while SMTP is down');
      expect(accounts.every(({ email }) => smtp.to(email).length === 1)).toBe(true);

      // Back, but answering 451 to every recipient for a while.
      smtp.tempfail = true;
      await smtp.start();
      await until(() => smtp.refusals >= 3, 'the SMTP server refusing recipients with 451');
      smtp.tempfail = false;

      for (const { email } of accounts) {
        const [, recovery] = await smtp.waitFor(email, 2);
        expect(recovery.template).toBe('reset_password');
      }
      for (const { email } of accounts) await settled(email);
      for (const { email } of accounts) {
        const received = smtp.to(email);
        expect(received.map((mail) => mail.template)).toEqual(['confirm_signup', 'reset_password']);
        const rows = await outboxOf(email);
        // The same message, once: its Message-ID is its outbox row's.
        expect(received.map((mail) => mail.messageId)).toEqual(rows.map((row) => `<${row.id}@mail.storefront.test>`));
        expect(rows[1].attempts).toBeGreaterThanOrEqual(3);
      }
      // Sent e-mails keep nothing secret at rest.
      const [{ count }] = await db().query(
        `SELECT count(*)::int AS count FROM mail_outbox WHERE status = 'sent' AND secret_sealed IS NOT NULL`,
      );
      expect(count).toBe(0);
    },
  );
});

/** The limits that keep the account routes from flooding an inbox or guessing a code. */
describe('account e-mail limits', () => {
  let api: TestApp;
  const auth = (path: string, body: unknown) =>
    api.request('POST', `/auth/v1${path}`, { headers: { apikey: PUBLIC_KEY }, body });

  beforeAll(async () => {
    api = await startApp({
      AUTH_CONFIRM_EMAIL: 'true',
      AUTH_MAIL_LIMIT_PER_EMAIL: '2',
      AUTH_MAIL_LIMIT_PER_IP: '1000',
      AUTH_VERIFY_FAILURES_PER_EMAIL: '3',
      AUTH_VERIFY_LIMIT_PER_IP: '1000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}account-limits:`,
    });
  });
  afterAll(() => api?.close());

  it('limits e-mails per address, whether or not an account has it', async () => {
    const known = uniqueEmail('limited');
    expect((await auth('/signup', { email: known, password: PASSWORD })).status).toBe(200);
    const unknown = uniqueEmail('unknown');
    for (const email of [known, unknown]) {
      // The known address had its confirmation e-mail already: one recovery left; the unknown has two.
      const allowed = email === known ? 1 : 2;
      for (let i = 0; i < allowed; i++) expect((await auth('/recover', { email })).status).toBe(200);
      const refused = await auth('/recover', { email });
      expect(refused.status).toBe(429);
      expect(refused.body.error_code).toBe('over_email_send_rate_limit');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await auth('/resend', { type: 'signup', email })).status).toBe(429);
    }
  });

  it('limits wrong codes per address: past the limit even the right code waits', async () => {
    const email = uniqueEmail('guessed');
    expect((await auth('/signup', { email, password: PASSWORD })).status).toBe(200);
    const [{ id }] = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT id FROM users WHERE lower(email) = lower($1)', [email]);
    // The right code is unknown to the test: these guesses are wrong, a one-in-a-million chance aside.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await auth('/verify', { type: 'signup', email, token: String(100000 + i) })).status);
    expect(statuses).toEqual([403, 403, 403, 429]);
    const [{ confirmed }] = await api.app
      .get<DataSource>(SYSTEM_DATA_SOURCE)
      .query('SELECT email_confirmed_at IS NOT NULL AS confirmed FROM users WHERE id = $1', [id]);
    expect(confirmed).toBe(false);
  });
});
