export * from './deliveries/delivery-queue.js';
export * from './deliveries/delivery.worker.js';
export * from './migrations/1763800400000-webhooks.js';
export * from './signing/webhook-signature.js';
export * from './webhooks.module.js';
export * from './migrations/1763800560000-millisecond-timestamps.js';
export * from './notifications/notification.repository.js';
