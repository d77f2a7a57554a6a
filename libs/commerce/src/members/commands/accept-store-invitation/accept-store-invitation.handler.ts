import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AcceptStoreInvitationCommand, type AcceptedInvitation } from '@app/auth';
import { GoTrueError } from '@app/core';
import { MemberRepository } from '../../member.repository.js';

/** Runs inside the sign-up transaction: a bad token undoes the new account too. */
@CommandHandler(AcceptStoreInvitationCommand)
export class AcceptStoreInvitationHandler implements ICommandHandler<AcceptStoreInvitationCommand> {
  constructor(private readonly members: MemberRepository) {}

  async execute({ inviteToken }: AcceptStoreInvitationCommand): Promise<AcceptedInvitation> {
    const member = await this.members.accept(inviteToken);
    if (!member) {
      throw new GoTrueError(
        400,
        'invite_not_found',
        'Invitation not found: it is unknown, expired, already used, or for another e-mail address',
      );
    }
    return { storeId: member.store_id, memberId: member.id };
  }
}
