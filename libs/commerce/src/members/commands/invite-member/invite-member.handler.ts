import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { verifyLink } from '@app/auth';
import { httpConfig, randomToken, type HttpConfig } from '@app/core';
import { MailOutbox } from '@app/mail';
import { commerceConfig, type CommerceConfig } from '../../../commerce.config.js';
import { MemberAlreadyInvited } from '../../member.errors.js';
import { MemberRepository } from '../../member.repository.js';
import { toMemberView } from '../../member.js';
import { InviteMemberCommand, type InvitedMember } from './invite-member.command.js';

/**
 * The invitation, and its e-mail in the same transaction. The e-mail's link carries a token of its
 * own, never answered to the merchant: using it proves the invitee reads the invited address.
 */
@CommandHandler(InviteMemberCommand)
export class InviteMemberHandler implements ICommandHandler<InviteMemberCommand> {
  constructor(
    private readonly members: MemberRepository,
    @Inject(commerceConfig.KEY) private readonly config: CommerceConfig,
    private readonly mail: MailOutbox,
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
  ) {}

  async execute({
    storeId,
    email,
    permissions,
    invitedBy,
    inviterEmail,
    redirectTo,
  }: InviteMemberCommand): Promise<InvitedMember> {
    const inviteToken = randomToken(32);
    const linkToken = randomToken(32);
    const member = await this.members.invite(
      storeId,
      email,
      permissions,
      inviteToken,
      linkToken,
      this.config.INVITE_TTL_HOURS,
      invitedBy,
    );
    if (!member) throw new MemberAlreadyInvited();
    await this.mail.enqueue({
      template: 'team_invitation',
      to: email,
      storeId,
      data: { email, inviter_email: inviterEmail, permissions, expires_at: member.invite_expires_at?.toISOString() },
      secret: { action_url: verifyLink(this.http.baseUrl, 'invite', linkToken, redirectTo) },
    });
    return { member: toMemberView(member), inviteToken };
  }
}
