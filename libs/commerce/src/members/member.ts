import type { Permission } from '../access/store-access.js';

export interface MemberRow {
  id: string;
  store_id: string;
  email: string;
  user_id: string | null;
  permissions: Permission[];
  status: 'invited' | 'active';
  invite_expires_at: Date | null;
  accepted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MemberView {
  id: string;
  store_id: string;
  email: string;
  user_id: string | null;
  permissions: Permission[];
  status: 'invited' | 'active';
  invite_expires_at: string | null;
  accepted_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toMemberView(row: MemberRow): MemberView {
  return {
    id: row.id,
    store_id: row.store_id,
    email: row.email,
    user_id: row.user_id,
    permissions: row.permissions,
    status: row.status,
    invite_expires_at: row.invite_expires_at?.toISOString() ?? null,
    accepted_at: row.accepted_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const MEMBER_EXAMPLE: MemberView = {
  id: '2a7d4e90-5b1c-4f3e-8d62-9e0a1b2c3d4e',
  store_id: '6f1c0b1e-2d4a-4c1b-9f57-1f0e8f6b8a11',
  email: 'sam@example.com',
  user_id: null,
  permissions: ['catalog', 'orders'],
  status: 'invited',
  invite_expires_at: '2026-11-29T10:00:00.000Z',
  accepted_at: null,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};
