import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrorResponse, ApiPage } from '@app/core';
import { ApiKeyView } from './api-key.js';

const KEY_USE =
  'A server sends the secret as `Authorization: Bearer sk_…` (no `apikey` header needed) and acts as a team ' +
  "member of this one store with the key's permissions. Store keys never manage keys, members or stores, never " +
  'call /auth/v1, and answer 403 on routes about a signed-in person.';

/** POST /functions/v1/stores/{store_id}/api-keys */
export const ApiCreateApiKey = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Create a store key',
      description:
        'Owner or admin. Answers the key and its `secret` (`sk_` and 32 random bytes, base64url), shown this once: ' +
        `the server keeps only its SHA-256. ${KEY_USE} A creation retried with the same \`Idempotency-Key\` answers ` +
        'the same key and secret again (the kept answer is encrypted at rest and forgotten after 24 h); a retry ' +
        'without one makes a second key (revoke the one not used). A store holds at most 50 live keys (not revoked, ' +
        'not expired); beyond, 409.',
    }),
    ApiErrorResponse(409, 'The store already holds 50 live keys (not revoked, not expired)', {
      code: 'CONFLICT',
      message: 'A store may hold at most 50 live keys (not revoked, not expired): revoke one to make another',
    }),
    ApiEnvelope(201, {
      api_key: ApiKeyView,
      secret: {
        type: 'string',
        description: 'The key itself, shown this once (never again, not even in the list)',
        example: 'sk_Q3vX9kz0Qm8b7w2Tn5Lr1Yc4Hs6Jd0Fa8Ge2Ku9Pi3o',
      },
    }),
  );

/** GET /functions/v1/stores/{store_id}/api-keys */
export const ApiListApiKeys = () =>
  applyDecorators(
    ApiParam({ name: 'store_id', format: 'uuid' }),
    ApiOperation({
      summary: "The store's keys",
      description: 'Owner or admin. Newest first, revoked ones too, paged by `limit` and `cursor`; never a secret.',
    }),
    ApiPage(ApiKeyView),
  );

/** DELETE /functions/v1/api-keys/{api_key_id} */
export const ApiRevokeApiKey = () =>
  applyDecorators(
    ApiParam({ name: 'api_key_id', format: 'uuid' }),
    ApiOperation({
      summary: 'Revoke a store key',
      description:
        'Owner or admin. The key is refused (401) from its next request on; revoking it again answers the ' +
        "same. A key of a store the caller does not own (another tenant's) answers 404.",
    }),
    ApiErrorResponse(403, 'Only merchants and admins own keys; store keys never manage keys', {
      code: 'FORBIDDEN',
      message: 'Only the store owner may do this',
    }),
    ApiErrorResponse(404, "No such key, or another store's", { code: 'NOT_FOUND', message: 'API key not found' }),
    ApiEnvelope(200, { message: { type: 'string', enum: ['API key revoked'], example: 'API key revoked' } }),
  );
