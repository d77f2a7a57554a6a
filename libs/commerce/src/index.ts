export * from './access/store-access.js';
export * from './access/store-access.guard.js';
export * from './access/store-access.service.js';
export * from './commerce.module.js';
export * from './migrations/1763800200000-stores-and-members.js';
export * from './stores/store.js';
