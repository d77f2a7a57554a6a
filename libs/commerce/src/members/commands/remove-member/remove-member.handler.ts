import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { MemberNotFound } from '../../member.errors.js';
import { MemberRepository } from '../../member.repository.js';
import { RemoveMemberCommand } from './remove-member.command.js';

@CommandHandler(RemoveMemberCommand)
export class RemoveMemberHandler implements ICommandHandler<RemoveMemberCommand> {
  constructor(private readonly members: MemberRepository) {}

  async execute({ storeId, memberId }: RemoveMemberCommand): Promise<void> {
    if (!(await this.members.remove(storeId, memberId))) throw new MemberNotFound();
  }
}
