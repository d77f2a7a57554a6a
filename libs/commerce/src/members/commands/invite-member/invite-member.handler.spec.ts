import { httpConfig, type Permission, PERMISSIONS } from '@app/core';
import type { MailOutbox, OutgoingMail } from '@app/mail';
import { commerceConfig } from '../../../commerce.config.js';
import { callerFacts, judgeStoreAccess, refusal, STORE_A } from '../../../testing/store-access.js';
import type { MemberRepository } from '../../member.repository.js';
import type { MemberRow } from '../../member.js';
import { MembersController } from '../../members.controller.js';
import { InviteMemberCommand } from './invite-member.command.js';
import { InviteMemberHandler } from './invite-member.handler.js';

/** Invitations held in memory: one per store and e-mail, as the table's unique index (on lower(email)) has it. */
class InMemoryMembers {
  readonly rows: (MemberRow & { token: string; linkToken: string; ttlHours: number; invitedBy: string })[] = [];

  async invite(
    storeId: string,
    email: string,
    permissions: Permission[],
    token: string,
    linkToken: string,
    ttlHours: number,
    invitedBy: string,
  ) {
    if (this.rows.some((row) => row.store_id === storeId && row.email.toLowerCase() === email.toLowerCase()))
      return null;
    const at = new Date('2026-11-22T10:00:00.000Z');
    const row = {
      id: `30000000-0000-4000-8000-${String(this.rows.length + 1).padStart(12, '0')}`,
      store_id: storeId,
      email,
      user_id: null,
      permissions,
      status: 'invited' as const,
      invite_expires_at: new Date(at.getTime() + ttlHours * 3600_000),
      accepted_at: null,
      created_at: at,
      updated_at: at,
      token,
      linkToken,
      ttlHours,
      invitedBy,
    };
    this.rows.push(row);
    return row;
  }
}

const MEMBER_ROUTES = {
  invite: MembersController.prototype.invite,
  list: MembersController.prototype.list,
  update: MembersController.prototype.update,
  remove: MembersController.prototype.remove,
};

describe('Inviting and managing team members', () => {
  it.each(Object.entries(MEMBER_ROUTES))(
    '%s: only the owner or an admin, never a member (even with every permission) or a customer',
    (_, route) => {
      const at = (overrides: Parameters<typeof callerFacts>[0]) =>
        judgeStoreAccess(route, callerFacts(overrides)).outcome;
      expect(at({ relation: 'owner', role: 'merchant', permissions: null })).toBe('allowed');
      expect(at({ relation: 'admin', role: 'admin', permissions: null })).toBe('allowed');
      expect(at({ relation: 'member', permissions: [...PERMISSIONS] })).toBe('FORBIDDEN');
      expect(at({ relation: 'customer', role: 'customer', permissions: null })).toBe('FORBIDDEN');
      // The owner of another store: no relation to this one, so it is not revealed.
      expect(at({ relation: null, storeId: null, role: 'merchant' })).toBe('NOT_FOUND');
    },
  );

  describe('InviteMemberHandler', () => {
    let members: InMemoryMembers;
    let mails: OutgoingMail[];
    let handler: InviteMemberHandler;
    const invite = (email: string, permissions: Permission[]) =>
      new InviteMemberCommand(
        STORE_A,
        email,
        permissions,
        'owner-user',
        'owner@example.com',
        'https://app.example/welcome',
      );

    beforeEach(() => {
      members = new InMemoryMembers();
      mails = [];
      const outbox = { enqueue: async (mail: OutgoingMail) => (mails.push(mail), 'mail-id') } as unknown as MailOutbox;
      const config = commerceConfig.from({ INVITE_TTL_HOURS: '48' });
      const http = httpConfig.from({ PUBLIC_BASE_URL: 'https://api.example.com' });
      handler = new InviteMemberHandler(members as unknown as MemberRepository, config, outbox, http);
    });

    it('creates the invitation for INVITE_TTL_HOURS and answers its token once, a new one per invitation', async () => {
      const first = await handler.execute(invite('sam@example.com', ['catalog', 'orders']));
      const second = await handler.execute(invite('kim@example.com', ['ai']));
      expect(first.member).toMatchObject({
        store_id: STORE_A,
        email: 'sam@example.com',
        permissions: ['catalog', 'orders'],
        status: 'invited',
      });
      expect(first.member.invite_expires_at).toBe('2026-11-24T10:00:00.000Z');
      expect(first.inviteToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(second.inviteToken).not.toBe(first.inviteToken);
      expect(members.rows.map((row) => [row.token, row.ttlHours, row.invitedBy])).toEqual([
        [first.inviteToken, 48, 'owner-user'],
        [second.inviteToken, 48, 'owner-user'],
      ]);
    });

    it('mails the invitee a link with a token of its own, never the answered invite_token', async () => {
      const { inviteToken } = await handler.execute(invite('sam@example.com', ['catalog']));
      expect(mails).toHaveLength(1);
      const [mail] = mails;
      expect(mail).toMatchObject({
        template: 'team_invitation',
        to: 'sam@example.com',
        storeId: STORE_A,
        data: { email: 'sam@example.com', inviter_email: 'owner@example.com', permissions: ['catalog'] },
      });
      const link = new URL(String(mail.secret?.action_url));
      expect(`${link.origin}${link.pathname}`).toBe('https://api.example.com/auth/v1/verify');
      expect(link.searchParams.get('type')).toBe('invite');
      expect(link.searchParams.get('redirect_to')).toBe('https://app.example/welcome');
      expect(link.searchParams.get('token')).toBe(members.rows[0].linkToken);
      expect(link.searchParams.get('token')).not.toBe(inviteToken);
    });

    it('refuses an e-mail the store already has as a member or invitation (409), answering no token', async () => {
      await handler.execute(invite('sam@example.com', ['catalog']));
      const error = await refusal(handler.execute(invite('sam@example.com', ['orders'])));
      expect(error.code).toBe('CONFLICT');
      expect(error.getStatus()).toBe(409);
      expect(error.message).toBe('This store already has a member or invitation with that e-mail');
      expect(members.rows.map((row) => row.permissions)).toEqual([['catalog']]);
      expect(mails).toHaveLength(1);
    });
  });
});
