import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { decodeCursor, toPage, type Page } from '@app/core';
import { MemberRepository } from '../../member.repository.js';
import { toMemberView, type MemberView } from '../../member.js';
import { ListMembersQuery } from './list-members.query.js';

@QueryHandler(ListMembersQuery)
export class ListMembersHandler implements IQueryHandler<ListMembersQuery> {
  constructor(private readonly members: MemberRepository) {}

  async execute({ storeId, limit, cursor }: ListMembersQuery): Promise<Page<MemberView>> {
    return toPage(await this.members.pageOfStore(storeId, limit, decodeCursor(cursor)), limit, toMemberView);
  }
}
