export * from './social.database.js';
export * from './platform-text.js';
export * from './platforms/registry.js';
export * from './platform-fields.js';
export * from './social.module.js';
export * from './platforms/social-platform.js';
export * from './publishing/scheduled-post.worker.js';
export { SOCIAL_POST_QUEUE } from './publishing/post-queue.js';
export * from './social.config.js';
