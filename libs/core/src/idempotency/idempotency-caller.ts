import type { Principal } from '../auth-context/principal.js';

/**
 * Whose `Idempotency-Key`s a request uses: keys are remembered per caller, so two callers never share
 * one. Returns `user:<user id>` for a signed-in user; `null` for a caller that has no keys of its own
 * (the public key alone, which reaches no route that writes). A new kind of principal adds its case here.
 */
export function idempotencyCaller(principal: Principal | undefined): string | null {
  switch (principal?.kind) {
    case 'user':
      return `user:${principal.userId}`;
    default:
      return null;
  }
}
