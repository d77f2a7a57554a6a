import { Body, Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { authConfig, type AuthConfig } from '@app/auth';
import {
  ApiEnvelope,
  ApiError,
  ApiFunctionRoute,
  ApiPage,
  CurrentUser,
  type HttpConfig,
  httpConfig,
  PageQueryDto,
  StoreScoped,
  type UserPrincipal,
} from '@app/core';
import { InviteMemberCommand } from './commands/invite-member/invite-member.command.js';
import { RemoveMemberCommand } from './commands/remove-member/remove-member.command.js';
import { UpdateMemberCommand } from './commands/update-member/update-member.command.js';
import { InviteMemberDto, UpdateMemberDto } from './member.dto.js';
import { MemberView } from './member.js';
import { ListMembersQuery } from './queries/list-members/list-members.query.js';

const memberId = new ParseUUIDPipe({
  exceptionFactory: () => ApiError.validation([{ field: 'member_id', message: 'member_id must be a UUID' }]),
});

/** Team members of a store: invited by e-mail, given permissions; managed by the owner (or an admin). */
@ApiTags('members')
@ApiFunctionRoute()
@ApiParam({ name: 'store_id', format: 'uuid' })
@Controller('functions/v1/stores/:store_id/members')
export class MembersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
    @Inject(authConfig.KEY) private readonly auth: AuthConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiOperation({
    summary: 'Invite a team member',
    description:
      "Mails the invitee an invitation (in the store's language) whose link accepts it and signs them in, making a team member account when they have none " +
      "(they then set a password with PUT /auth/v1/user); the store's `team_invitation` mail setting turns that e-mail off. Also answers the `invite_token` once, " +
      'for apps that send their own: the invitee signs up at /auth/v1/signup with `data.invite_token` and the same e-mail. Either within INVITE_TTL_HOURS (default 7 days).',
  })
  @ApiEnvelope(201, {
    member: MemberView,
    invite_token: {
      type: 'string',
      description: 'Shown this once: for an app that sends its own invitation (sign-up with `data.invite_token`)',
      example: 'Xq3v9kz0Qm8b7w2Tn5Lr1Yc4Hs6Jd0Fa8Ge2Ku9Pi3o',
    },
  })
  async invite(@Param('store_id') storeId: string, @Body() body: InviteMemberDto, @CurrentUser() user: UserPrincipal) {
    if (body.redirect_to !== undefined && !this.config.allowsRedirectTo(body.redirect_to)) {
      throw ApiError.validation([{ field: 'redirect_to', message: 'redirect_to is not on an allowed origin (ALLOWED_REDIRECT_ORIGINS)' }]);
    }
    const { member, inviteToken } = await this.commands.execute(
      new InviteMemberCommand(
        storeId,
        body.email,
        body.permissions,
        user.userId,
        user.email,
        this.auth.redirectTarget(body.redirect_to, this.config),
      ),
    );
    return { success: true, member, invite_token: inviteToken };
  }

  @Get()
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiOperation({
    summary: "The store's members and pending invitations",
    description:
      'Owner or admin. Newest first, paginated with `limit` and `cursor` (`next_cursor`); `status` tells members from invitations.',
  })
  @ApiPage(MemberView)
  async list(@Param('store_id') storeId: string, @Query() page: PageQueryDto) {
    return { success: true, ...(await this.queries.execute(new ListMembersQuery(storeId, page.limit, page.cursor))) };
  }

  @Patch(':member_id')
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiParam({ name: 'member_id', format: 'uuid' })
  @ApiOperation({
    summary: "Replace a member's permissions",
    description:
      "Owner or admin. The list given replaces the old one; it takes effect on the member's next request. Works on a pending invitation too; another store's member answers 404 `Member not found`.",
  })
  @ApiEnvelope(200, { member: MemberView })
  async update(@Param('store_id') storeId: string, @Param('member_id', memberId) id: string, @Body() body: UpdateMemberDto) {
    return { success: true, member: await this.commands.execute(new UpdateMemberCommand(storeId, id, body.permissions)) };
  }

  @Delete(':member_id')
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiParam({ name: 'member_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Remove a member or withdraw an invitation',
    description:
      "Owner or admin. The member loses access to the store at once; a withdrawn invitation's link and token stop working. Another store's member answers 404 `Member not found`.",
  })
  @ApiEnvelope(200, { message: { type: 'string', enum: ['Member removed'], example: 'Member removed' } })
  async remove(@Param('store_id') storeId: string, @Param('member_id', memberId) id: string) {
    await this.commands.execute(new RemoveMemberCommand(storeId, id));
    return { success: true, message: 'Member removed' };
  }
}
