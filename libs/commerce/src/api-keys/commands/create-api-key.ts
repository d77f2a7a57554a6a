import { createHash, randomBytes } from 'node:crypto';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Permission } from '@app/core';
import { InvalidFields } from '../../commerce-error.js';
import { LiveApiKeyLimitReached } from '../api-key.errors.js';
import { ApiKeyRepository } from '../api-key.repository.js';
import { toApiKeyView, type ApiKeyView } from '../api-key.js';

/** Random bytes in a secret: 256 bits, so a single SHA-256 is a safe way to store it (nothing to guess or stretch). */
const SECRET_BYTES = 32;
/** Characters of the secret kept as its non-secret prefix (`sk_` and 8 of the base64url). */
const PREFIX_LENGTH = 11;
/** Live keys (not revoked, not expired) a store may hold at once: each has its own rate-limit bucket. */
export const LIVE_KEYS_PER_STORE = 50;

export class CreateApiKeyCommand extends Command<{ apiKey: ApiKeyView; secret: string }> {
  constructor(
    readonly storeId: string,
    readonly createdBy: string,
    readonly name: string,
    readonly permissions: Permission[],
    readonly expiresAt: string | undefined,
  ) {
    super();
  }
}

/** Makes a key: a random secret, shown once, stored as its SHA-256; at most LIVE_KEYS_PER_STORE live ones a store. */
@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand> {
  constructor(private readonly keys: ApiKeyRepository) {}

  async execute({ storeId, createdBy, name, permissions, expiresAt }: CreateApiKeyCommand) {
    const expires = expiresAt === undefined ? null : new Date(expiresAt);
    if (expires && !(expires.getTime() > Date.now())) {
      throw new InvalidFields([{ field: 'expires_at', message: 'expires_at must be in the future' }]);
    }
    if (name.trim() === '') throw new InvalidFields([{ field: 'name', message: 'name should not be empty' }]);
    if ((await this.keys.lockAndCountLive(storeId)) >= LIVE_KEYS_PER_STORE)
      throw new LiveApiKeyLimitReached(LIVE_KEYS_PER_STORE);
    const secret = `sk_${randomBytes(SECRET_BYTES).toString('base64url')}`;
    const row = await this.keys.insert(storeId, {
      name: name.trim(),
      prefix: secret.slice(0, PREFIX_LENGTH),
      secretHash: createHash('sha256').update(secret, 'utf8').digest(),
      permissions,
      createdBy,
      expiresAt: expires,
    });
    return { apiKey: toApiKeyView(row), secret };
  }
}
