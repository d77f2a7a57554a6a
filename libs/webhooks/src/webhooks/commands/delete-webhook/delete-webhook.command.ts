import { Command } from '@nestjs/cqrs';

export class DeleteWebhookCommand extends Command<void> {
  constructor(readonly webhookId: string) {
    super();
  }
}
