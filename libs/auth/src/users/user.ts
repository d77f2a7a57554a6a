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
  email_confirmed_at: Date | null;
  confirmation_sent_at: Date | null;
  recovery_sent_at: Date | null;
  new_email: string | null;
  email_change_sent_at: Date | null;
  user_metadata: Record<string, unknown>;
}

/** The user as `/auth/v1` answers it, in GoTrue's shape. */
export interface UserView {
  id: string;
  aud: string;
  email: string;
  role: Role;
  app_metadata: { role: Role; provider: string; providers: string[]; store_id?: string };
  user_metadata: Record<string, unknown> & { full_name?: string };
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
  email_confirmed_at: string | null;
  confirmed_at: string | null;
  confirmation_sent_at?: string;
  recovery_sent_at?: string;
  new_email?: string;
  email_change_sent_at?: string;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

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
    user_metadata: { ...user.user_metadata, ...(user.full_name ? { full_name: user.full_name } : {}) },
    created_at: user.created_at.toISOString(),
    updated_at: user.updated_at.toISOString(),
    last_sign_in_at: iso(user.last_sign_in_at),
    email_confirmed_at: iso(user.email_confirmed_at),
    confirmed_at: iso(user.email_confirmed_at),
    ...(user.confirmation_sent_at ? { confirmation_sent_at: user.confirmation_sent_at.toISOString() } : {}),
    ...(user.recovery_sent_at ? { recovery_sent_at: user.recovery_sent_at.toISOString() } : {}),
    ...(user.new_email ? { new_email: user.new_email } : {}),
    ...(user.email_change_sent_at ? { email_change_sent_at: user.email_change_sent_at.toISOString() } : {}),
  };
}
