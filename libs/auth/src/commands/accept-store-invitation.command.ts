import { Command } from '@nestjs/cqrs';

export interface AcceptedInvitation {
  storeId: string;
  memberId: string;
}

/**
 * Sign-up with `data.invite_token`: binds the new team member to the invitation's store.
 * Handled by the store context (commerce); fails with a GoTrueError when the token is not usable.
 */
export class AcceptStoreInvitationCommand extends Command<AcceptedInvitation> {
  constructor(
    readonly inviteToken: string,
    readonly email: string,
    readonly userId: string,
  ) {
    super();
  }
}
