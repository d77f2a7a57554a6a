import { Command } from '@nestjs/cqrs';

export class DeleteProductCommand extends Command<void> {
  constructor(readonly productId: string) {
    super();
  }
}
