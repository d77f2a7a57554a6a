import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { WebhookRepository } from '../../webhook.repository.js';
import { WebhookSecrets } from '../../webhook-secrets.js';
import { WebhookUrlChecker } from '../../webhook-url.checker.js';
import { toWebhookView } from '../../webhook.js';
import { RegisterWebhookCommand, type RegisteredWebhook } from './register-webhook.command.js';

/** Stores the webhook with its secret sealed; a generated secret is handed back once. */
@CommandHandler(RegisterWebhookCommand)
export class RegisterWebhookHandler implements ICommandHandler<RegisterWebhookCommand> {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly secrets: WebhookSecrets,
    private readonly urls: WebhookUrlChecker,
  ) {}

  async execute({ storeId, url, events, secret }: RegisterWebhookCommand): Promise<RegisteredWebhook> {
    const checkedUrl = await this.urls.check(url);
    const generatedSecret = secret === null ? this.secrets.generate() : null;
    const stored = this.secrets.store(secret ?? generatedSecret!);
    const row = await this.webhooks.insert(storeId, checkedUrl, events, stored.sealed, stored.hint);
    return { webhook: toWebhookView(row), generatedSecret };
  }
}
