export * from './social.module.js';
