import { REQUEST_ROLE } from './roles.js';

/** The role whose grants requests have (the request login is its member); see roles.ts. */
export const RLS_ROLE = REQUEST_ROLE;
