import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApiKeyNotFound } from '../api-key.errors.js';
import { ApiKeyRepository } from '../api-key.repository.js';

export class RevokeApiKeyCommand extends Command<void> {
  constructor(readonly keyId: string) {
    super();
  }
}

/** Revokes a key (again: still 200); a key the caller does not manage, or no key, is 404. */
@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(private readonly keys: ApiKeyRepository) {}

  async execute({ keyId }: RevokeApiKeyCommand): Promise<void> {
    if (!(await this.keys.revoke(keyId))) throw new ApiKeyNotFound();
  }
}
