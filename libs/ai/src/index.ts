export * from './ai.module.js';
export * from './migrations/1763800650000-ai-images.js';
export * from './providers/ai-provider.js';
export * from './migrations/1763801100000-cover-function.js';
export * from './functions/ai-function.js';
export * from './functions/credit-commands.js';
export * from './functions/registry.js';
export * from './ai.config.js';
