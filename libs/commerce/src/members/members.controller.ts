import { Controller, Delete, Get, HttpCode, Inject, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { authConfig, type AuthConfig } from '@app/auth';
import {
  ApiError,
  ApiFunctionRoute,
  CurrentUser,
  type HttpConfig,
  httpConfig,
  PageQueryDto,
  type UserPrincipal,
  StoreScoped,
  Body,
  Query,
} from '@app/core';
import { InviteMemberCommand } from './commands/invite-member/invite-member.command.js';
import { RemoveMemberCommand } from './commands/remove-member/remove-member.command.js';
import { UpdateMemberCommand } from './commands/update-member/update-member.command.js';
import { InviteMemberDto, UpdateMemberDto } from './member.dto.js';
import { ListMembersQuery } from './queries/list-members/list-members.query.js';
import { ApiInviteMember, ApiListMembers, ApiUpdateMember, ApiRemoveMember } from './members.openapi.js';

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
  @ApiInviteMember()
  async invite(@Param('store_id') storeId: string, @Body() body: InviteMemberDto, @CurrentUser() user: UserPrincipal) {
    if (body.redirect_to !== undefined && !this.config.allowsRedirectTo(body.redirect_to)) {
      throw ApiError.validation([
        { field: 'redirect_to', message: 'redirect_to is not on an allowed origin (ALLOWED_REDIRECT_ORIGINS)' },
      ]);
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
  @ApiListMembers()
  async list(@Param('store_id') storeId: string, @Query() page: PageQueryDto) {
    return { success: true, ...(await this.queries.execute(new ListMembersQuery(storeId, page.limit, page.cursor))) };
  }

  @Patch(':member_id')
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiUpdateMember()
  async update(
    @Param('store_id') storeId: string,
    @Param('member_id', memberId) id: string,
    @Body() body: UpdateMemberDto,
  ) {
    return {
      success: true,
      member: await this.commands.execute(new UpdateMemberCommand(storeId, id, body.permissions)),
    };
  }

  @Delete(':member_id')
  @StoreScoped({ from: 'param', need: 'manage' })
  @ApiRemoveMember()
  async remove(@Param('store_id') storeId: string, @Param('member_id', memberId) id: string) {
    await this.commands.execute(new RemoveMemberCommand(storeId, id));
    return { success: true, message: 'Member removed' };
  }
}
