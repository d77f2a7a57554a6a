import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiError, AppConfig, randomToken } from '@app/core';
import { MemberRepository } from '../../member.repository.js';
import { toMemberView } from '../../member.js';
import { InviteMemberCommand, type InvitedMember } from './invite-member.command.js';

@CommandHandler(InviteMemberCommand)
export class InviteMemberHandler implements ICommandHandler<InviteMemberCommand> {
  constructor(
    private readonly members: MemberRepository,
    private readonly config: AppConfig,
  ) {}

  async execute({ storeId, email, permissions, invitedBy }: InviteMemberCommand): Promise<InvitedMember> {
    const inviteToken = randomToken(32);
    const member = await this.members.invite(storeId, email, permissions, inviteToken, this.config.INVITE_TTL_HOURS, invitedBy);
    if (!member) throw ApiError.conflict('This store already has a member or invitation with that e-mail');
    return { member: toMemberView(member), inviteToken };
  }
}
