import { Command } from '@nestjs/cqrs';
import type { Permission } from '@app/core';
import type { MemberView } from '../../member.js';

export interface InvitedMember {
  member: MemberView;
  /** Shown once, for apps that send their own invitation: the invitee signs up with it (`data.invite_token`). */
  inviteToken: string;
}

export class InviteMemberCommand extends Command<InvitedMember> {
  constructor(
    readonly storeId: string,
    readonly email: string,
    readonly permissions: Permission[],
    readonly invitedBy: string,
    /** The inviter's address, named in the invitation e-mail. */
    readonly inviterEmail: string,
    /** Where the e-mail's accept link leads (an allowed origin). */
    readonly redirectTo: string,
  ) {
    super();
  }
}
