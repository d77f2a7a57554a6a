export * from './ai.database.js';
export * from './ai.module.js';
export * from './providers/ai-provider.js';
export * from './functions/ai-function.js';
export * from './functions/credit-commands.js';
export * from './functions/registry.js';
export * from './ai.config.js';
