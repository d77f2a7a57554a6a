export * from './platform-text.js';
export * from './social.module.js';
