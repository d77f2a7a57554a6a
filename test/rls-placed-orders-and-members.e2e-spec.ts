import type { DataSource } from 'typeorm';
import { hashToken, RequestBinding } from '@app/core';
import { merchantWithStore, PUBLIC_KEY, signUp, startApp, uniqueEmail, type TestApp } from './support/app.js';
import { asRequest, SYSTEM_DATA_SOURCE } from './support/database.js';

type Tenant = Awaited<ReturnType<typeof merchantWithStore>>;

/**
 * Two holes a request's own SQL once reached, in transactions opened exactly as a request's (request
 * login, bound to the session): items added to an order after it was placed (its total and stock are
 * checked only in the transaction that places it), a membership made active without an invitation
 * accepted, and an invitation whose token hashes the injected SQL chose or read (whose link would then
 * sign it in as the invited address's account, or accept the invitation without the invitee).
 */
describe('row-level security: placed orders and memberships', () => {
  let api: TestApp;
  let system: DataSource;
  let owner: Tenant;
  let productId: string;
  let customerToken: string;

  const stock = async () =>
    (await system.query('SELECT inventory_quantity FROM products WHERE id = $1', [productId]))[0].inventory_quantity;
  const orderState = async (orderId: string) =>
    (
      await system.query(
        `SELECT o.total::text, (SELECT count(*)::int FROM order_items i ` +
          `WHERE i.order_id = o.id) AS items FROM orders o WHERE o.id = $1`,
        [orderId],
      )
    )[0];
  const place = async (token: string) => {
    const placed = await api.request('POST', `/functions/v1/stores/${owner.storeId}/orders`, {
      token,
      body: { items: [{ product_id: productId, quantity: 1 }] },
    });
    expect(placed.status).toBe(201);
    return placed.body.order.id as string;
  };
  const addItems = (token: string, orderId: string) =>
    asRequest(api, token, (q) =>
      q(
        `INSERT INTO order_items (order_id, store_id, product_id, position, ` +
          `name, quantity, price) VALUES ($1, $2, $3, 2, 'more', 100, 0)`,
        [orderId, owner.storeId, productId],
      ),
    );

  beforeAll(async () => {
    api = await startApp();
    system = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    owner = await merchantWithStore(api, 'Placed orders');
    const created = await api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
      token: owner.token,
      body: { name: 'Lamp', price: 10, inventory_quantity: 500, status: 'active' },
    });
    productId = created.body.product.id;
    customerToken = (await signUp(api, { role: 'customer', store_id: owner.storeId })).access_token;
  });
  afterAll(() => api.close());

  it('a ticket check with no subject is false, never unknown (an IF NOT would let unknown through)', async () => {
    const wellFormed = `${Date.now()}.${'0'.repeat(64)}`;
    const [row] = await system.query(
      `SELECT storefront_private.ticket_valid('invite', NULL, $1) AS no_subject, ` +
        `storefront_private.ticket_valid('invite', 'x', NULL) AS no_ticket`,
      [wellFormed],
    );
    expect(row).toEqual({ no_subject: false, no_ticket: false });
  });

  it(
    "refuses a customer's items added to its own pending order " +
      'after it was placed; cancelling returns only what was taken',
    async () => {
      const before = await stock();
      const orderId = await place(customerToken);
      expect(await stock()).toBe(before - 1);

      await expect(addItems(customerToken, orderId)).rejects.toThrow(
        /row-level security policy for table "order_items"/,
      );
      expect(await orderState(orderId)).toEqual({ total: '10.00', items: 1 });
      expect(await stock()).toBe(before - 1);

      const cancelled = await api.request('PATCH', `/functions/v1/orders/${orderId}`, {
        token: customerToken,
        body: { status: 'cancelled' },
      });
      expect(cancelled.status).toBe(200);
      expect(await stock()).toBe(before);
    },
  );

  it("refuses the store's staff items added to a placed order too", async () => {
    const orderId = await place(owner.token);
    await expect(addItems(owner.token, orderId)).rejects.toThrow(/row-level security policy for table "order_items"/);
    expect(await orderState(orderId)).toEqual({ total: '10.00', items: 1 });
  });

  it('refuses staff items on an old order moved back to pending, even one that never took its stock', async () => {
    const orderId = await place(owner.token);
    // An order from before stock was taken at placing (none is made so now): the update below then gives it this
    // transaction's row version, which alone once let items in.
    await system.query('UPDATE orders SET stock_taken = false WHERE id = $1', [orderId]);
    const reopened = asRequest(api, owner.token, async (q) => {
      await q(`UPDATE orders SET status = 'pending', updated_at = now() WHERE id = $1`, [orderId]);
      await q(
        `INSERT INTO order_items (order_id, store_id, product_id, position, name, quantity, price) ` +
          `VALUES ($1, $2, $3, 2, 'more', 100, 0)`,
        [orderId, owner.storeId, productId],
      );
    });
    await expect(reopened).rejects.toThrow(/row-level security policy for table "order_items"/);
    expect(await orderState(orderId)).toEqual({ total: '10.00', items: 1 });
  });

  it('refuses an owner an active membership for another user, with no invitation and no consent', async () => {
    const victim = await signUp(api);
    const forged = asRequest(api, owner.token, (q) =>
      q(
        `INSERT INTO store_members (store_id, email, user_id, permissions, status, accepted_at)
         VALUES ($1, $2, $3, '{orders}', 'active', now())`,
        [owner.storeId, victim.user.email, victim.user.id],
      ),
    );
    await expect(forged).rejects.toThrow(/permission denied for table store_members/);
    // Naming only an invitation's columns makes an invitation, never a member.
    const [invited] = await asRequest(api, owner.token, (q) =>
      q(
        `INSERT INTO store_members (store_id, email, permissions) ` +
          `VALUES ($1, $2, '{orders}') RETURNING status, user_id`,
        [owner.storeId, uniqueEmail('invited')],
      ),
    );
    expect(invited).toEqual({ status: 'invited', user_id: null });
    expect(await system.query('SELECT 1 FROM store_members WHERE user_id = $1', [victim.user.id])).toEqual([]);
    const stores = await asRequest(api, victim.access_token, (q) =>
      q('SELECT id FROM stores WHERE id = $1', [owner.storeId]),
    );
    expect(stores).toEqual([]);
  });

  describe('invitation tokens', () => {
    const planted = 'planted-invitation-token';
    const binding = () => api.app.get(RequestBinding);
    const verifyInvite = (tokenHash: string) =>
      api.request('POST', '/auth/v1/verify', {
        headers: { apikey: PUBLIC_KEY },
        body: { type: 'invite', token_hash: tokenHash },
      });
    /** app_invite_member as the owner's request, with the ticket given (or one the API would make). */
    const inviteWith = (
      storeId: string,
      invitedBy: string | null,
      email: string,
      ticket: (subject: string) => string,
    ) => {
      const tokenHash = hashToken(`${planted}-answered`);
      const linkHash = hashToken(planted);
      const subject = `${storeId}:${invitedBy}:${email}:${tokenHash.toString('hex')}:${linkHash.toString('hex')}`;
      return asRequest(api, owner.token, (q) =>
        q('SELECT id, status FROM app_invite_member($1, $2, $3, $4, $5, 24, $6, $7)', [
          storeId,
          email,
          '{orders}',
          tokenHash,
          linkHash,
          invitedBy,
          ticket(subject),
        ]),
      );
    };
    const wellFormed = () => `${Date.now()}.${'0'.repeat(64)}`;

    it('refuses an invitation row with token hashes the request chose; its link signs no one in', async () => {
      const victim = await merchantWithStore(api, 'Victim');
      const planting = asRequest(api, owner.token, (q) =>
        q(
          `INSERT INTO store_members (store_id, email, permissions, invite_token_hash, invite_link_hash, ` +
            `invite_expires_at) VALUES ($1, $2, '{}', sha256($3::bytea), sha256($4::bytea), now() + interval '1 day')`,
          [owner.storeId, victim.session.user.email, `${planted}-answered`, planted],
        ),
      );
      await expect(planting).rejects.toThrow(/permission denied for table store_members/);
      const linkOnly = asRequest(api, owner.token, (q) =>
        q(
          `INSERT INTO store_members (store_id, email, permissions, invite_link_hash) ` +
            `VALUES ($1, $2, '{}', sha256($3::bytea))`,
          [owner.storeId, victim.session.user.email, planted],
        ),
      );
      await expect(linkOnly).rejects.toThrow(/permission denied for table store_members/);
      const verified = await verifyInvite(planted);
      expect(verified.status).toBe(403);
      expect(verified.body.access_token).toBeUndefined();
      expect(
        await system.query('SELECT 1 FROM store_members WHERE lower(email) = lower($1)', [victim.session.user.email]),
      ).toEqual([]);
    });

    it("refuses reading an invitation's token hashes, while its other columns stay readable", async () => {
      const invited = await api.request('POST', `/functions/v1/stores/${owner.storeId}/members`, {
        token: owner.token,
        body: { email: uniqueEmail('pending'), permissions: ['orders'] },
      });
      expect(invited.status).toBe(201);
      for (const column of ['invite_link_hash', 'invite_token_hash', '*']) {
        await expect(
          asRequest(api, owner.token, (q) =>
            q(`SELECT ${column} FROM store_members WHERE store_id = $1`, [owner.storeId]),
          ),
        ).rejects.toThrow(/permission denied for table store_members/);
      }
      const rows = await asRequest(api, owner.token, (q) =>
        q('SELECT email, status, invited_by FROM store_members WHERE id = $1', [invited.body.member.id]),
      );
      expect(rows).toEqual([
        { email: invited.body.member.email, status: 'invited', invited_by: owner.session.user.id },
      ]);
    });

    it('app_invite_member refuses a forged ticket, and a store the caller may not invite to', async () => {
      const email = uniqueEmail('forged');
      const me = owner.session.user.id;
      for (const forged of [() => 'forged', wellFormed, (subject: string) => binding().ticket('mail', subject)]) {
        await expect(inviteWith(owner.storeId, me, email, forged)).rejects.toThrow(/invalid ticket/);
      }
      // A null argument leaves no subject to check a ticket against: still refused.
      await expect(inviteWith(owner.storeId, null, email, wellFormed)).rejects.toThrow(/invalid ticket/);
      // A ticket made for this very subject, for another owner's store: the invitation policy's rule.
      const other = await merchantWithStore(api, 'Not mine');
      await expect(
        inviteWith(other.storeId, me, email, (subject) => binding().ticket('invite', subject)),
      ).rejects.toThrow(/not allowed to invite to this store/);
      expect(
        await system.query('SELECT store_id FROM store_members WHERE invite_link_hash = $1', [hashToken(planted)]),
      ).toEqual([]);
      expect((await verifyInvite(planted)).status).toBe(403);
      // The ticket the API makes for its own store goes through.
      const made = await inviteWith(owner.storeId, me, email, (subject) => binding().ticket('invite', subject));
      expect(made).toEqual([{ id: expect.any(String), status: 'invited' }]);
      expect(
        await system.query('SELECT email, invited_by FROM store_members WHERE invite_link_hash = $1', [
          hashToken(planted),
        ]),
      ).toEqual([{ email, invited_by: me }]);
    });
  });
});
