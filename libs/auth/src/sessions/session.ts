import type { UserView } from '../users/user.js';

/** The GoTrue session body of API.md §1. */
export interface SessionView {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: UserView;
}
