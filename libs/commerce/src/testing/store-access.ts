/**
 * Commerce's test helpers for the store-access guard: core's (`libs/core/src/testing/store-access.ts`),
 * with `refusal` answering commerce's domain errors as their one HTTP mapping does.
 */
import { ApiError } from '@app/core';
import { CommerceError } from '../commerce-error.js';
import { commerceErrorAnswer, type CommerceRefusal } from '../commerce-errors.http.js';

export {
  callerFacts,
  grantedAccess,
  judgeStoreAccess,
  routeRule,
  STORE_A,
  STORE_B,
  type Verdict,
} from '../../../core/src/testing/store-access.js';

/**
 * The ApiError a promise is refused with (a commerce error as its HTTP mapping answers it); fails when
 * it resolves or throws anything else.
 */
export async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    if (error instanceof CommerceError) return commerceErrorAnswer(error as CommerceRefusal);
    throw error;
  }
  throw new Error('expected the request to be refused, it succeeded');
}
