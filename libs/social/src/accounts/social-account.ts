import type { SocialPlatformId } from '../platforms/registry.js';
import type { SocialAccountRow } from '../social.repository.js';

/** A connected account as the API shows it: never its tokens. */
export interface SocialAccountView {
  id: string;
  store_id: string;
  platform: SocialPlatformId;
  platform_account_id: string;
  username: string;
  display_name: string | null;
  /** `reauthorize`: the platform refused to renew access; connect again. */
  status: 'active' | 'reauthorize';
  token_expires_at: string | null;
  scopes: string[];
  connected_at: string;
  updated_at: string;
}

export function toAccountView(row: SocialAccountRow): SocialAccountView {
  return {
    id: row.id,
    store_id: row.store_id,
    platform: row.platform,
    platform_account_id: row.platform_account_id,
    username: row.username,
    display_name: row.display_name,
    status: row.status,
    token_expires_at: row.token_expires_at ? new Date(row.token_expires_at).toISOString() : null,
    scopes: row.scopes,
    connected_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export const ACCOUNT_EXAMPLE: SocialAccountView = {
  id: '6f1c2d9e-3b7a-4c8e-9f10-2a3b4c5d6e7f',
  store_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  platform: 'x',
  platform_account_id: '1790123456789012345',
  username: 'bluefern',
  display_name: 'Blue Fern Goods',
  status: 'active',
  token_expires_at: '2026-11-22T12:00:00.000Z',
  scopes: ['tweet.read', 'tweet.write', 'users.read', 'offline.access'],
  connected_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};
