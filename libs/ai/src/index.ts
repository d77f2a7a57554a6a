export * from './ai.module.js';
