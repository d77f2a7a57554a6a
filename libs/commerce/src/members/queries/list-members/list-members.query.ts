import { Query } from '@nestjs/cqrs';
import type { Page } from '@app/core';
import type { MemberView } from '../../member.js';

export class ListMembersQuery extends Query<Page<MemberView>> {
  constructor(
    readonly storeId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
