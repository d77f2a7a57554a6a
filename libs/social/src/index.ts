export * from './platform-text.js';
export * from './social.module.js';
export * from './migrations/1763800700000-social.js';
export * from './migrations/1763800900000-social-connect-functions.js';
export * from './platforms/social-platform.js';
export * from './publishing/scheduled-post.worker.js';
export * from './migrations/1763801100100-sandbox-post-function.js';
