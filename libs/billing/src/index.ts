export * from './billing.database.js';
export * from './billing.module.js';
export * from './credit-costs.js';
export * from './credit-ledger.js';
export * from './credits.service.js';
export * from './billing.config.js';
