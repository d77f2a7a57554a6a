import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiPage } from '@app/core';
import { MemberView } from './member.js';

/** POST /functions/v1/stores/{store_id}/members */
export const ApiInviteMember = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Invite a team member',
      description:
        "Mails the invitee an invitation (in the store's language) whose link accepts it and signs them in, " +
        'making a team member account when they have none (they then set a password with PUT /auth/v1/user); the ' +
        "store's `team_invitation` mail setting turns that e-mail off. Also answers the `invite_token` once, for " +
        'apps that send their own: the invitee signs up at /auth/v1/signup with `data.invite_token` and the same ' +
        'e-mail. Either within INVITE_TTL_HOURS (default 7 days).',
    }),
    ApiEnvelope(201, {
      member: MemberView,
      invite_token: {
        type: 'string',
        description: 'Shown this once: for an app that sends its own invitation (sign-up with `data.invite_token`)',
        example: 'Xq3v9kz0Qm8b7w2Tn5Lr1Yc4Hs6Jd0Fa8Ge2Ku9Pi3o',
      },
    }),
  );

/** GET /functions/v1/stores/{store_id}/members */
export const ApiListMembers = () =>
  applyDecorators(
    ApiOperation({
      summary: "The store's members and pending invitations",
      description:
        'Owner or admin. Newest first, paginated with `limit` and `cursor` ' +
        '(`next_cursor`); `status` tells members from invitations.',
    }),
    ApiPage(MemberView),
  );

/** PATCH /functions/v1/stores/{store_id}/members/{member_id} */
export const ApiUpdateMember = () =>
  applyDecorators(
    ApiParam({ name: 'member_id', format: 'uuid' }),
    ApiOperation({
      summary: "Replace a member's permissions",
      description:
        "Owner or admin. The list given replaces the old one; it takes effect on the member's next " +
        "request. Works on a pending invitation too; another store's member answers 404 `Member not found`.",
    }),
    ApiEnvelope(200, { member: MemberView }),
  );

/** DELETE /functions/v1/stores/{store_id}/members/{member_id} */
export const ApiRemoveMember = () =>
  applyDecorators(
    ApiParam({ name: 'member_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Remove a member or withdraw an invitation',
      description:
        "Owner or admin. The member loses access to the store at once; a withdrawn invitation's " +
        "link and token stop working. Another store's member answers 404 `Member not found`.",
    }),
    ApiEnvelope(200, { message: { type: 'string', enum: ['Member removed'], example: 'Member removed' } }),
  );
