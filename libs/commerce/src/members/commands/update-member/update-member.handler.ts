import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { MemberNotFound } from '../../member.errors.js';
import { MemberRepository } from '../../member.repository.js';
import { toMemberView, type MemberView } from '../../member.js';
import { UpdateMemberCommand } from './update-member.command.js';

@CommandHandler(UpdateMemberCommand)
export class UpdateMemberHandler implements ICommandHandler<UpdateMemberCommand> {
  constructor(private readonly members: MemberRepository) {}

  async execute({ storeId, memberId, permissions }: UpdateMemberCommand): Promise<MemberView> {
    const member = await this.members.updatePermissions(storeId, memberId, permissions);
    if (!member) throw new MemberNotFound();
    return toMemberView(member);
  }
}
