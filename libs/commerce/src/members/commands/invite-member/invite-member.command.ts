import { Command } from '@nestjs/cqrs';
import type { Permission } from '../../../access/store-access.js';
import type { MemberView } from '../../member.js';

export interface InvitedMember {
  member: MemberView;
  /** Shown once: the invitee signs up with it (`data.invite_token`). */
  inviteToken: string;
}

export class InviteMemberCommand extends Command<InvitedMember> {
  constructor(
    readonly storeId: string,
    readonly email: string,
    readonly permissions: Permission[],
    readonly invitedBy: string,
  ) {
    super();
  }
}
