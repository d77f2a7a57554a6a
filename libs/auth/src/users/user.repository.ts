import { Injectable } from '@nestjs/common';
import { queryRows, type Role, ScopedDb, SystemDb, TenantDb } from '@app/core';
import type { UserRow } from './user.js';

const FOREIGN_KEY_VIOLATION = '23503';
/** Every column but the password hash, which requests may not read at all. */
const VISIBLE_COLUMNS = `id, email, NULL::text AS password_hash, role, full_name, provider, store_id,
  created_at, updated_at, last_sign_in_at, email_confirmed_at, confirmation_sent_at, recovery_sent_at, new_email,
  email_change_sent_at, user_metadata`;

export interface NewUser {
  email: string;
  passwordHash: string | null;
  role: Role;
  fullName: string | null;
  provider: string;
  storeId: string | null;
}

@Injectable()
export class UserRepository {
  constructor(
    private readonly db: TenantDb,
    private readonly system: SystemDb,
    private readonly scoped: ScopedDb,
  ) {}

  /** The user without its password hash (requests may not read that column at all). */
  async findById(id: string): Promise<UserRow | null> {
    const rows: UserRow[] = await queryRows(this.db.tx, `SELECT ${VISIBLE_COLUMNS} FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async findByEmail(email: string): Promise<UserRow | null> {
    const rows: UserRow[] = await queryRows(this.system.tx, 'SELECT * FROM users WHERE lower(email) = lower($1)', [
      email,
    ]);
    return rows[0] ?? null;
  }

  /**
   * The signed-in user's own name and metadata (its row only, under row-level security): `fullName`
   * undefined keeps the name; metadata keys are merged in, a key set to null is removed.
   */
  async updateProfile(
    id: string,
    fullName: string | null | undefined,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    await queryRows(
      this.db.tx,
      `UPDATE users SET full_name = CASE WHEN $2 THEN $3 ELSE full_name END,
                        user_metadata = jsonb_strip_nulls(user_metadata || $4::jsonb), updated_at = now()
        WHERE id = $1 RETURNING id`,
      [id, fullName !== undefined, fullName ?? null, JSON.stringify(metadata)],
    );
  }

  /**
   * Inserts the user (the admin, at boot: its address counts as confirmed); says why not when the e-mail is taken (also
   * by a concurrent sign-up) or a customer's store is unknown.
   */
  async insert(user: NewUser): Promise<UserRow | 'email_taken' | 'unknown_store'> {
    const rows: UserRow[] | 'unknown_store' = await queryRows<UserRow>(
      this.system.tx,
      `INSERT INTO users (email, password_hash, role, full_name, provider, store_id, email_confirmed_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT ((lower(email))) DO NOTHING
       RETURNING *`,
      [user.email, user.passwordHash, user.role, user.fullName, user.provider, user.storeId],
    ).catch((error: { code?: string }) => {
      if (error.code === FOREIGN_KEY_VIOLATION) return 'unknown_store' as const;
      throw error;
    });
    return rows === 'unknown_store' ? rows : (rows[0] ?? 'email_taken');
  }

  /** Makes every admin but the account with `email` a merchant; returns the ids of those demoted. */
  async demoteAdminsExcept(email: string): Promise<string[]> {
    const rows: { id: string }[] = await queryRows(
      this.system.tx,
      `UPDATE users SET role = 'merchant', updated_at = now() WHERE ` +
        `role = 'admin' AND lower(email) <> lower($1) RETURNING id`,
      [email],
    );
    return rows.map((row) => row.id);
  }

  async setPassword(id: string, passwordHash: string, role: Role): Promise<void> {
    await queryRows(
      this.scoped.tx,
      'UPDATE users SET password_hash = $2, role = $3, updated_at = now() WHERE id = $1',
      [id, passwordHash, role],
    );
  }
}
