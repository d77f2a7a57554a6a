export * from './billing.module.js';
export * from './credit-costs.js';
export * from './credit-ledger.js';
export * from './credits.service.js';
export * from './migrations/1763800600000-credits.js';
export * from './migrations/1763801000000-credit-functions.js';
export * from './migrations/1763801600100-ai-function-prices.js';
export * from './billing.config.js';
