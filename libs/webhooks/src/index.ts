export * from './webhooks.module.js';
