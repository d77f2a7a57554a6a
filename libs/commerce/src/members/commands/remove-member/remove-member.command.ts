import { Command } from '@nestjs/cqrs';

export class RemoveMemberCommand extends Command<void> {
  constructor(
    readonly storeId: string,
    readonly memberId: string,
  ) {
    super();
  }
}
