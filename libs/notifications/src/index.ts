export * from './notification.repository.js';
export * from './notifications.module.js';
export * from './stock-notifications.saga.js';
export * from './notifications.database.js';
