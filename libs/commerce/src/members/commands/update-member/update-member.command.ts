import { Command } from '@nestjs/cqrs';
import type { Permission } from '@app/core';
import type { MemberView } from '../../member.js';

export class UpdateMemberCommand extends Command<MemberView> {
  constructor(
    readonly storeId: string,
    readonly memberId: string,
    readonly permissions: Permission[],
  ) {
    super();
  }
}
