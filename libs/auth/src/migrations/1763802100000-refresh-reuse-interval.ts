import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA } from '@app/core';

const OLD_ROTATE = 'auth_rotate_refresh_token(bytea, bytea)';
const ROTATE = 'auth_rotate_refresh_token(bytea, bytea, integer)';
/** A session still open: not revoked, and younger than the installation's SESSION_MAX_AGE. */
const LIVE = `s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM ${PRIVATE_SCHEMA}.installation i)`;
/** How many rotations after the presented token the walk to its session's current token looks. */
const MAX_HOPS = 1000;

/**
 * The grace of a reused refresh token (AUTH_REFRESH_REUSE_INTERVAL). A token presented again within
 * `p_reuse_seconds` of its own rotation, its session still open, answers `current`: the session's
 * latest token (its hash, and how many rotations after the presented one it is, which lets the API,
 * deriving each token from its parent, recompute it) instead of revoking the session. Nothing is
 * written then: no second child, no revocation. Later reuse revokes the session as before.
 *
 * Concurrent presentations of one token take turns on its row: the first rotates it; the others wait
 * for it to commit, then find it used and walk to the child. The current token is taken `FOR SHARE`,
 * so that it cannot be rotated under the answer before this transaction ends; if it was rotated while
 * the walk read, the walk starts again.
 */
export class RefreshReuseInterval1763802100000 implements MigrationInterface {
  name = 'RefreshReuseInterval1763802100000';

  async up(db: QueryRunner): Promise<void> {
    await dropDefiners(db, [OLD_ROTATE]);
    await db.query(`
      CREATE FUNCTION auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea, p_reuse_seconds integer)
      RETURNS TABLE (outcome text, session_id uuid, user_id uuid, current_hash bytea, hops integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        known record;
        head record;
      BEGIN
        UPDATE auth_refresh_tokens t SET used_at = now()
          FROM auth_sessions s
         WHERE t.token_hash = p_old_hash AND t.used_at IS NULL AND s.id = t.session_id AND ${LIVE}
        RETURNING t.id, t.session_id, s.user_id INTO token;
        IF FOUND THEN
          INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id)
          VALUES (token.session_id, p_new_hash, token.id);
          UPDATE auth_sessions SET refreshed_at = now() WHERE id = token.session_id;
          outcome := 'rotated';
          session_id := token.session_id;
          user_id := token.user_id;
          current_hash := p_new_hash;
          hops := 1;
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT t.id, t.session_id, t.used_at, s.user_id, (${LIVE}) AS live INTO known
          FROM auth_refresh_tokens t JOIN auth_sessions s ON s.id = t.session_id
         WHERE t.token_hash = p_old_hash;
        IF NOT FOUND OR known.used_at IS NULL THEN
          outcome := 'unknown';
          RETURN NEXT;
          RETURN;
        END IF;
        outcome := 'reused';
        session_id := known.session_id;
        IF known.live AND p_reuse_seconds > 0 AND known.used_at > now() - make_interval(secs => p_reuse_seconds) THEN
          FOR attempt IN 1..10 LOOP
            WITH RECURSIVE chain (id, token_hash, used_at, depth) AS (
              SELECT known.id, p_old_hash, known.used_at, 0
              UNION ALL
              SELECT c.id, c.token_hash, c.used_at, chain.depth + 1
                FROM chain JOIN auth_refresh_tokens c ON c.session_id = known.session_id AND c.parent_id = chain.id
               WHERE chain.used_at IS NOT NULL AND chain.depth < ${MAX_HOPS}
            )
            SELECT chain.id, chain.token_hash, chain.depth INTO head FROM chain WHERE chain.used_at IS NULL;
            EXIT WHEN NOT FOUND;
            PERFORM 1 FROM auth_refresh_tokens t WHERE t.id = head.id AND t.used_at IS NULL FOR SHARE;
            IF FOUND THEN
              outcome := 'current';
              user_id := known.user_id;
              current_hash := head.token_hash;
              hops := head.depth;
              RETURN NEXT;
              RETURN;
            END IF;
          END LOOP;
          -- Within the interval nothing is revoked, even when no current token could be pinned down.
          RETURN NEXT;
          RETURN;
        END IF;
        UPDATE auth_sessions SET revoked_at = now() WHERE id = known.session_id AND revoked_at IS NULL;
        RETURN NEXT;
      END $$`);
    await handOverDefiner(db, ROTATE);
  }

  /** Back to the function of AuthFunctions1763801200000: every reuse revokes. */
  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, [ROTATE]);
    await db.query(`
      CREATE FUNCTION auth_rotate_refresh_token(p_old_hash bytea, p_new_hash bytea)
      RETURNS TABLE (outcome text, session_id uuid, user_id uuid)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        known record;
      BEGIN
        UPDATE auth_refresh_tokens t SET used_at = now()
          FROM auth_sessions s
         WHERE t.token_hash = p_old_hash AND t.used_at IS NULL AND s.id = t.session_id AND s.revoked_at IS NULL
           AND s.created_at > now() - (SELECT i.session_max_age FROM ${PRIVATE_SCHEMA}.installation i)
        RETURNING t.id, t.session_id, s.user_id INTO token;
        IF FOUND THEN
          INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id)
          VALUES (token.session_id, p_new_hash, token.id);
          UPDATE auth_sessions SET refreshed_at = now() WHERE id = token.session_id;
          outcome := 'rotated';
          session_id := token.session_id;
          user_id := token.user_id;
          RETURN NEXT;
          RETURN;
        END IF;
        SELECT t.session_id, t.used_at INTO known FROM auth_refresh_tokens t WHERE t.token_hash = p_old_hash;
        IF FOUND AND known.used_at IS NOT NULL THEN
          UPDATE auth_sessions SET revoked_at = now() WHERE id = known.session_id AND revoked_at IS NULL;
          outcome := 'reused';
          session_id := known.session_id;
        ELSE
          outcome := 'unknown';
        END IF;
        RETURN NEXT;
      END $$`);
    await handOverDefiner(db, OLD_ROTATE);
  }
}
