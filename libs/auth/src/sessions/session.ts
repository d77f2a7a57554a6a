import type { UserView } from '../users/user.js';

/** The GoTrue session body that sign-up, sign-in and refresh answer. */
export interface SessionView {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: UserView;
}
