import { randomBytes } from 'node:crypto';
import { RefreshReuseInterval1763802100000 } from '@app/auth';
import { REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';
import { migratedDatabase, type MigratedDatabase } from './support/migrations.js';

/**
 * RefreshReuseInterval1763802100000 both ways: `down` brings back the rotation function that revokes
 * at any reuse, with the same owner and grants; `up` again the one with the reuse interval.
 */
describe('migration: refresh reuse interval', () => {
  let db: MigratedDatabase;
  const migration = new RefreshReuseInterval1763802100000();
  const step = (direction: 'up' | 'down') => db.step(migration, direction);

  beforeAll(async () => {
    db = await migratedDatabase('refresh_reuse_migration');
  });
  afterAll(() => db?.close());

  /** Every version of the rotation function: its arguments, owner, and whether requests may call it. */
  const versions = async () =>
    (
      await db.client.query(
        `SELECT pg_get_function_identity_arguments(p.oid) AS args, p.proowner::regrole::text AS owner,
                p.prosecdef AS definer, has_function_privilege($1, p.oid, 'EXECUTE') AS callable
           FROM pg_proc p WHERE p.proname = 'auth_rotate_refresh_token'`,
        [REQUEST_ROLE],
      )
    ).rows;

  const row = async (sql: string, parameters: unknown[]) => (await db.client.query(sql, parameters)).rows[0];
  /** A session whose first refresh token was rotated just now; that token's hash. */
  async function rotatedSession(): Promise<{ sessionId: string; used: Buffer }> {
    const email = `migration-${randomBytes(4).toString('hex')}@example.com`;
    const user = await row(`INSERT INTO users (email, role) VALUES ($1, 'merchant') RETURNING id`, [email]);
    const session = await row('INSERT INTO auth_sessions (user_id) VALUES ($1) RETURNING id', [user.id]);
    const used = randomBytes(32);
    const parent = await row(
      `INSERT INTO auth_refresh_tokens (session_id, token_hash, used_at)
       VALUES ($1, $2, now()) RETURNING id`,
      [session.id, used],
    );
    await row('INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id) VALUES ($1, $2, $3)', [
      session.id,
      randomBytes(32),
      parent.id,
    ]);
    return { sessionId: session.id, used };
  }
  const revoked = async (sessionId: string) =>
    (await row('SELECT revoked_at IS NOT NULL AS revoked FROM auth_sessions WHERE id = $1', [sessionId])).revoked;

  it('down restores the function that revokes at any reuse; up brings the interval back', async () => {
    const current = { owner: SYSTEM_ROLE, definer: true, callable: true };
    const withInterval = [{ args: 'p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer', ...current }];
    expect(await versions()).toEqual(withInterval);

    await step('down');
    expect(await versions()).toEqual([{ args: 'p_old_hash bytea, p_new_hash bytea', ...current }]);
    const before = await rotatedSession();
    const old = await row('SELECT * FROM auth_rotate_refresh_token($1, $2)', [before.used, randomBytes(32)]);
    expect(old).toEqual({ outcome: 'reused', session_id: before.sessionId, user_id: null });
    expect(await revoked(before.sessionId)).toBe(true);

    await step('up');
    expect(await versions()).toEqual(withInterval);
    const after = await rotatedSession();
    const call = 'SELECT outcome, hops FROM auth_rotate_refresh_token($1, $2, $3)';
    expect(await row(call, [after.used, randomBytes(32), 10])).toEqual({ outcome: 'current', hops: 1 });
    expect(await revoked(after.sessionId)).toBe(false);
    expect(await row(call, [after.used, randomBytes(32), 0])).toEqual({ outcome: 'reused', hops: null });
    expect(await revoked(after.sessionId)).toBe(true);
  });
});
