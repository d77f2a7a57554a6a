export * from './address-policy.js';
export * from './http-client.errors.js';
export * from './safe-http-client.js';
export * from './safe-http.types.js';
export * from './safe-http.providers.js';
