import { AcceptStoreInvitationHandler } from './accept-store-invitation/accept-store-invitation.handler.js';
import { InviteMemberHandler } from './invite-member/invite-member.handler.js';
import { RemoveMemberHandler } from './remove-member/remove-member.handler.js';
import { UpdateMemberHandler } from './update-member/update-member.handler.js';

export const MemberCommandHandlers = [
  InviteMemberHandler,
  UpdateMemberHandler,
  RemoveMemberHandler,
  AcceptStoreInvitationHandler,
];
