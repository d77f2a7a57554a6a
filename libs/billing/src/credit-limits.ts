/** Largest single grant: keeps a typo from minting billions (and the balance within integer range). */
export const MAX_GRANT = 1_000_000;

/** Largest balance a store may hold. */
export const MAX_BALANCE = 2_000_000_000;
