import { CommerceError } from '../commerce-error.js';

/** The store named does not exist, or the caller cannot change it. */
export class StoreNotFound extends CommerceError {
  readonly kind = 'store_not_found';

  constructor() {
    super('Store not found');
  }
}

export type StoreError = StoreNotFound;
