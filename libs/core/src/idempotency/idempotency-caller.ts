import type { Principal } from '../tenancy/principal.js';

/**
 * Whose `Idempotency-Key`s a request uses: keys are remembered per caller, so two callers never share
 * one. Returns `user:<user id>` for a signed-in user, `api_key:<key id>` for a store key; `null` for a caller that has
 * no keys of its own (the public key alone, which reaches no route that writes). A new kind of principal adds its case
 * here.
 */
export function idempotencyCaller(principal: Principal | undefined): string | null {
  switch (principal?.kind) {
    case 'user':
      return `user:${principal.userId}`;
    case 'api_key':
      return `api_key:${principal.keyId}`;
    default:
      return null;
  }
}
