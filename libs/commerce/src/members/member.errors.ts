import { CommerceError } from '../commerce-error.js';

/** The member or invitation named is not one of the store's. */
export class MemberNotFound extends CommerceError {
  readonly kind = 'member_not_found';

  constructor() {
    super('Member not found');
  }
}

/** An e-mail is a store's member, or invited to it, once. */
export class MemberAlreadyInvited extends CommerceError {
  readonly kind = 'member_already_invited';

  constructor() {
    super('This store already has a member or invitation with that e-mail');
  }
}

export type MemberError = MemberNotFound | MemberAlreadyInvited;
