import { CommerceError } from '../commerce-error.js';

/** The key named does not exist, or the caller does not manage it. */
export class ApiKeyNotFound extends CommerceError {
  readonly kind = 'api_key_not_found';

  constructor() {
    super('API key not found');
  }
}

/** A store holds at most `limit` live keys (not revoked, not expired) at once. */
export class LiveApiKeyLimitReached extends CommerceError {
  readonly kind = 'live_api_key_limit_reached';

  constructor(readonly limit: number) {
    super(`A store may hold at most ${limit} live keys (not revoked, not expired): revoke one to make another`);
  }
}

export type ApiKeyError = ApiKeyNotFound | LiveApiKeyLimitReached;
