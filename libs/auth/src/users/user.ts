import type { Role } from '@app/core';

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  role: Role;
  full_name: string | null;
  provider: string;
  store_id: string | null;
  created_at: Date;
  updated_at: Date;
  last_sign_in_at: Date | null;
}

/** The user as `/auth/v1` answers it, in GoTrue's shape. */
export interface UserView {
  id: string;
  aud: string;
  email: string;
  role: Role;
  app_metadata: { role: Role; provider: string; providers: string[]; store_id?: string };
  user_metadata: { full_name?: string };
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export function toUserView(user: UserRow, audience: string): UserView {
  return {
    id: user.id,
    aud: audience,
    email: user.email,
    role: user.role,
    app_metadata: {
      role: user.role,
      provider: user.provider,
      providers: [user.provider],
      ...(user.store_id ? { store_id: user.store_id } : {}),
    },
    user_metadata: user.full_name ? { full_name: user.full_name } : {},
    created_at: user.created_at.toISOString(),
    updated_at: user.updated_at.toISOString(),
    last_sign_in_at: user.last_sign_in_at?.toISOString() ?? null,
  };
}
