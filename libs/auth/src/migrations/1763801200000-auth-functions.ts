import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';

/** Checks `p_ticket` (`<issued ms>.<hex HMAC of "purpose:subject:issued">`, at most a minute old). */
const TICKET_VALID = (purpose: string, subject: string) => `${PRIVATE_SCHEMA}.ticket_valid('${purpose}', ${subject}, p_ticket)`;

// The first versions of three functions AccountRecovery1763801720100 replaced, kept as constants so its
// down() can make them again exactly.

// A new account (never an admin). Answers its id, or why not.
export const CREATE_USER_V1 = `
      CREATE FUNCTION auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text,
                                       p_store uuid, p_ticket text)
      RETURNS TABLE (outcome text, user_id uuid)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      BEGIN
        IF NOT ${TICKET_VALID('create-user', 'lower(p_email)')} THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        IF p_role NOT IN ('merchant', 'customer', 'team_member') THEN
          RAISE EXCEPTION 'no such role for a new account: %', p_role USING ERRCODE = '22023';
        END IF;
        IF p_role = 'customer' AND NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store) THEN
          outcome := 'unknown_store';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, store_id)
        VALUES (p_email, p_password_hash, p_role, p_full_name, p_provider, CASE WHEN p_role = 'customer' THEN p_store END)
        ON CONFLICT ((lower(email))) DO NOTHING
        RETURNING id INTO user_id;
        outcome := CASE WHEN user_id IS NULL THEN 'email_taken' ELSE 'created' END;
        RETURN NEXT;
      END $$`;

// Only what a password check needs, and only with a ticket: an injected query cannot collect hashes.
export const PASSWORD_CANDIDATE_V1 = `
      CREATE FUNCTION auth_password_candidate(p_email text, p_ticket text) RETURNS TABLE (user_id uuid, password_hash text)
      LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
      BEGIN
        IF NOT ${TICKET_VALID('sign-in', 'lower(p_email)')} THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        RETURN QUERY SELECT u.id, u.password_hash FROM users u WHERE lower(u.email) = lower(p_email);
      END $$`;

// Google vouched for the address: its account (made a merchant when new). A password someone set on
// that address before is cleared and its sessions end: the address's owner keeps the account.
export const GOOGLE_ACCOUNT_V1 = `
      CREATE FUNCTION auth_google_account(p_email text, p_full_name text, p_ticket text) RETURNS uuid
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        account record;
        created uuid;
      BEGIN
        IF NOT ${TICKET_VALID('google', 'lower(p_email)')} THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider) VALUES (p_email, NULL, 'merchant', p_full_name, 'google')
        ON CONFLICT ((lower(email))) DO NOTHING RETURNING id INTO created;
        IF created IS NOT NULL THEN
          RETURN created;
        END IF;
        SELECT u.id, u.password_hash INTO account FROM users u WHERE lower(u.email) = lower(p_email);
        IF account.password_hash IS NOT NULL THEN
          UPDATE users SET password_hash = NULL, updated_at = now() WHERE id = account.id;
          UPDATE auth_sessions SET revoked_at = now() WHERE user_id = account.id AND revoked_at IS NULL;
        END IF;
        RETURN account.id;
      END $$`;

/**
 * Signing up, in and out as narrow functions of the request role, so `/auth/v1` needs no privileged
 * connection. What must cross users (find an account by e-mail, open a session for it, rotate a
 * refresh token whose owner is not known yet) takes either a secret the caller holds (the refresh
 * token) or a ticket only the API can make: an HMAC under the installation key, over the purpose and
 * the account, at most a minute old, minted after the API checked the password or Google's answer.
 * The rest runs as the new session, under row-level security.
 */
export class AuthFunctions1763801200000 implements MigrationInterface {
  name = 'AuthFunctions1763801200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.ticket_valid(p_purpose text, p_subject text, p_ticket text) RETURNS boolean
      LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
        SELECT coalesce(p_ticket ~ '^[0-9]{13}[.][0-9a-f]{64}$', false)
           AND abs(extract(epoch FROM clock_timestamp()) * 1000 - split_part(p_ticket, '.', 1)::numeric) < 60000
           AND sha256(convert_to(split_part(p_ticket, '.', 2), 'UTF8'))
             = sha256(convert_to(encode(${PRIVATE_SCHEMA}.hmac(p_purpose || ':' || p_subject || ':' || split_part(p_ticket, '.', 1)), 'hex'), 'UTF8'))
      $$`);
    await db.query(`REVOKE ALL ON FUNCTION ${PRIVATE_SCHEMA}.ticket_valid(text, text, text) FROM PUBLIC`);
    await db.query(`GRANT EXECUTE ON FUNCTION ${PRIVATE_SCHEMA}.ticket_valid(text, text, text) TO ${SYSTEM_ROLE}`);

    await db.query(CREATE_USER_V1);
    await handOverDefiner(db, 'auth_create_user(text, text, text, text, text, uuid, text)');

    await db.query(PASSWORD_CANDIDATE_V1);
    await handOverDefiner(db, 'auth_password_candidate(text, text)');

    // A session, with its first refresh token, for a user the API has just proven.
    await db.query(`
      CREATE FUNCTION auth_open_session(p_user uuid, p_refresh_hash bytea, p_user_agent text, p_ip inet, p_ticket text) RETURNS uuid
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        session uuid;
      BEGIN
        IF NOT ${TICKET_VALID('open-session', 'p_user::text')} THEN
          RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501';
        END IF;
        INSERT INTO auth_sessions (user_id, user_agent, ip) VALUES (p_user, left(p_user_agent, 512), p_ip) RETURNING id INTO session;
        INSERT INTO auth_refresh_tokens (session_id, token_hash) VALUES (session, p_refresh_hash);
        UPDATE users SET last_sign_in_at = now() WHERE id = p_user;
        RETURN session;
      END $$`);
    await handOverDefiner(db, 'auth_open_session(uuid, bytea, text, inet, text)');

    // Rotation: the old token is the credential. Reuse revokes the session (the token family).
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
          INSERT INTO auth_refresh_tokens (session_id, token_hash, parent_id) VALUES (token.session_id, p_new_hash, token.id);
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
    await handOverDefiner(db, 'auth_rotate_refresh_token(bytea, bytea)');

    // Logout, as the bound session: this one, all of the user's, or all but this one.
    await db.query(`
      CREATE FUNCTION auth_end_sessions(p_scope text) RETURNS integer
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        ended integer;
      BEGIN
        IF app_user_id() IS NULL OR p_scope NOT IN ('local', 'global', 'others') THEN
          RETURN 0;
        END IF;
        UPDATE auth_sessions SET revoked_at = now()
         WHERE user_id = app_user_id() AND revoked_at IS NULL
           AND CASE p_scope WHEN 'local' THEN id = app_session_id() WHEN 'others' THEN id <> app_session_id() ELSE true END;
        GET DIAGNOSTICS ended = ROW_COUNT;
        RETURN ended;
      END $$`);
    await handOverDefiner(db, 'auth_end_sessions(text)');

    await db.query(GOOGLE_ACCOUNT_V1);
    await handOverDefiner(db, 'auth_google_account(text, text, text)');

    // A team member accepting the invitation made for its (the bound user's) e-mail.
    await db.query(`
      CREATE FUNCTION app_accept_invitation(p_token_hash bytea) RETURNS TABLE (store_id uuid, member_id uuid)
      LANGUAGE sql VOLATILE SECURITY DEFINER AS $$
        UPDATE store_members m
           SET user_id = app_user_id(), status = 'active', accepted_at = now(), updated_at = now(), invite_token_hash = NULL
         WHERE m.invite_token_hash = p_token_hash AND m.status = 'invited' AND m.invite_expires_at > now()
           AND lower(m.email) = (SELECT lower(u.email) FROM users u WHERE u.id = app_user_id() AND u.role = 'team_member')
        RETURNING m.store_id, m.id
      $$`);
    await handOverDefiner(db, 'app_accept_invitation(bytea)');

    // A customer's own record, made at its sign-up in its store.
    await db.query(`CREATE POLICY customers_self_create ON customers FOR INSERT TO ${REQUEST_ROLE}
      WITH CHECK (user_id = (SELECT app_user_id()) AND store_id = ANY ((SELECT app_accessible_store_ids())::uuid[]))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP POLICY customers_self_create ON customers`);
    await dropDefiners(db, [
      'auth_create_user(text, text, text, text, text, uuid, text)',
      'auth_password_candidate(text, text)',
      'auth_open_session(uuid, bytea, text, inet, text)',
      'auth_rotate_refresh_token(bytea, bytea)',
      'auth_end_sessions(text)',
      'auth_google_account(text, text, text)',
      'app_accept_invitation(bytea)',
    ]);
    await db.query(`DROP FUNCTION ${PRIVATE_SCHEMA}.ticket_valid(text, text, text)`);
  }
}
