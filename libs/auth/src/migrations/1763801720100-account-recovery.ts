import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';
import { CREATE_USER_V1, GOOGLE_ACCOUNT_V1, PASSWORD_CANDIDATE_V1 } from './1763801200000-auth-functions.js';

/** Checks `p_ticket` (an API-made HMAC over the purpose and the subject, at most a minute old). */
const TICKET_VALID = (purpose: string, subject: string) => `${PRIVATE_SCHEMA}.ticket_valid('${purpose}', ${subject}, p_ticket)`;
const INVALID_TICKET = `RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501'`;
/** The first lines of a function of the bound user (`me`) that needs a ticket over `subject`. */
const AS_BOUND_USER = (purpose: string, subject: string) => `
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NULL OR NOT ${TICKET_VALID(purpose, subject)} THEN
          ${INVALID_TICKET};
        END IF;`;
/** A user's live token of a kind, replaced by this one: the token goes to `email`, its link and code stored as hashes. */
const REPLACE_TOKEN = (user: string, kind: string, email: string) => `
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (${user}, ${kind}, ${email}, p_token_hash, p_code_hash, now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;`;
/** Answers one row with this outcome (and whatever else was set) and ends the function. */
const ANSWER = (outcome: string) => `outcome := '${outcome}';
          RETURN NEXT;
          RETURN;`;
const ME = '(SELECT app_user_id())';
const UNIQUE_VIOLATION = 'unique_violation';

const OLD_CREATE_USER = 'auth_create_user(text, text, text, text, text, uuid, text)';
const CREATE_USER = 'auth_create_user(text, text, text, text, text, uuid, boolean, text)';
const PASSWORD_CANDIDATE = 'auth_password_candidate(text, text)';
const GOOGLE_ACCOUNT = 'auth_google_account(text, text, text)';
const NEW_FUNCTIONS = [
  'auth_issue_token(text, text, bytea, bytea, integer, text)',
  'auth_verify_token(text, bytea, text, bytea, text)',
  'auth_accept_invitation_link(bytea)',
  'auth_set_password(text, integer, text)',
  'auth_request_email_change(text, bytea, bytea, integer, text)',
  'auth_change_email(text, text)',
];

/**
 * Accounts people can recover: e-mail confirmation, password recovery, e-mail change, invitation
 * links. One-time tokens (`auth_one_time_tokens`, requests have no rights on it) are stored as the
 * SHA-256 of the link's token and of the 6-digit code, one live token per user and purpose, and are
 * deleted when used. What crosses users needs a ticket the API makes after its own checks (issuing a
 * token for an address, checking a code), or the credential itself (a link's token); what changes a
 * signed-in user's password or address runs as that user's bound session and needs a ticket too, so
 * SQL injected into a request cannot skip the current-password or confirmation checks.
 * Accounts from before confirmation existed count as confirmed.
 */
export class AccountRecovery1763801720100 implements MigrationInterface {
  name = 'AccountRecovery1763801720100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE users
        ADD COLUMN email_confirmed_at timestamptz,
        ADD COLUMN confirmation_sent_at timestamptz,
        ADD COLUMN recovery_sent_at timestamptz,
        ADD COLUMN new_email text,
        ADD COLUMN email_change_sent_at timestamptz,
        ADD COLUMN user_metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(user_metadata) = 'object' AND octet_length(user_metadata::text) <= 16384)`);
    await db.query(`UPDATE users SET email_confirmed_at = created_at`);
    await db.query(
      `GRANT SELECT (email_confirmed_at, confirmation_sent_at, recovery_sent_at, new_email, email_change_sent_at, user_metadata) ON users TO ${REQUEST_ROLE}`,
    );
    // A user's own profile (name, metadata): its own row, those columns only.
    await db.query(`GRANT UPDATE (full_name, user_metadata, updated_at) ON users TO ${REQUEST_ROLE}`);
    await db.query(`CREATE POLICY users_self_update ON users FOR UPDATE TO ${REQUEST_ROLE} USING (id = ${ME}) WITH CHECK (id = ${ME})`);

    await db.query(`
      CREATE TABLE auth_one_time_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('signup', 'recovery', 'email_change')),
        email text NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        code_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        UNIQUE (user_id, kind)
      )`);
    await db.query(`CREATE INDEX auth_one_time_tokens_email_idx ON auth_one_time_tokens (lower(email), kind)`);
    await db.query(`ALTER TABLE auth_one_time_tokens ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE auth_one_time_tokens FORCE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON auth_one_time_tokens FROM PUBLIC, ${REQUEST_ROLE}`);
    await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON auth_one_time_tokens TO ${SYSTEM_ROLE}`);
    await db.query(`CREATE POLICY auth_one_time_tokens_system ON auth_one_time_tokens TO ${SYSTEM_ROLE} USING (true) WITH CHECK (true)`);

    // The functions this replaces belong to the system role: dropped as it, made anew and handed over.
    await dropDefiners(db, [OLD_CREATE_USER, PASSWORD_CANDIDATE, GOOGLE_ACCOUNT]);

    // A new account (never an admin), confirmed or not. An address already taken by an unconfirmed
    // account is given to this sign-up (its password replaced; a confirmation mail follows): only the
    // address's owner can confirm it, so whoever registered it first gains nothing.
    await db.query(`
      CREATE FUNCTION auth_create_user(p_email text, p_password_hash text, p_role text, p_full_name text, p_provider text,
                                       p_store uuid, p_confirmed boolean, p_ticket text)
      RETURNS TABLE (outcome text, user_id uuid)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        existing record;
      BEGIN
        IF NOT ${TICKET_VALID('create-user', 'lower(p_email)')} THEN
          ${INVALID_TICKET};
        END IF;
        IF p_role NOT IN ('merchant', 'customer', 'team_member') THEN
          RAISE EXCEPTION 'no such role for a new account: %', p_role USING ERRCODE = '22023';
        END IF;
        IF p_role = 'customer' AND NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store) THEN
          ${ANSWER('unknown_store')}
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, store_id, email_confirmed_at)
        VALUES (p_email, p_password_hash, p_role, p_full_name, p_provider, CASE WHEN p_role = 'customer' THEN p_store END,
                CASE WHEN p_confirmed THEN now() END)
        ON CONFLICT ((lower(email))) DO NOTHING
        RETURNING id INTO user_id;
        IF user_id IS NOT NULL THEN
          ${ANSWER('created')}
        END IF;
        SELECT u.id, u.email_confirmed_at, u.role INTO existing FROM users u WHERE lower(u.email) = lower(p_email) FOR UPDATE;
        IF p_confirmed OR existing.email_confirmed_at IS NOT NULL OR existing.role = 'admin' THEN
          outcome := 'email_taken';
        ELSE
          UPDATE users SET password_hash = p_password_hash, full_name = coalesce(p_full_name, full_name), updated_at = now()
           WHERE id = existing.id;
          outcome := 'unconfirmed';
          user_id := existing.id;
        END IF;
        RETURN NEXT;
      END $$`);
    await handOverDefiner(db, CREATE_USER);

    // Only what a password check needs, and only with a ticket: an injected query cannot collect hashes.
    await db.query(`
      CREATE FUNCTION auth_password_candidate(p_email text, p_ticket text)
      RETURNS TABLE (user_id uuid, password_hash text, email_confirmed boolean)
      LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
      BEGIN
        IF NOT ${TICKET_VALID('sign-in', 'lower(p_email)')} THEN
          ${INVALID_TICKET};
        END IF;
        RETURN QUERY SELECT u.id, u.password_hash, u.email_confirmed_at IS NOT NULL FROM users u WHERE lower(u.email) = lower(p_email);
      END $$`);
    await handOverDefiner(db, PASSWORD_CANDIDATE);

    // Google vouched for the address: its account, confirmed (made a merchant when new). A password
    // someone set on that address before is cleared and its sessions end: the address's owner keeps it.
    await db.query(`
      CREATE FUNCTION auth_google_account(p_email text, p_full_name text, p_ticket text) RETURNS uuid
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        account record;
        created uuid;
      BEGIN
        IF NOT ${TICKET_VALID('google', 'lower(p_email)')} THEN
          ${INVALID_TICKET};
        END IF;
        INSERT INTO users (email, password_hash, role, full_name, provider, email_confirmed_at)
        VALUES (p_email, NULL, 'merchant', p_full_name, 'google', now())
        ON CONFLICT ((lower(email))) DO NOTHING RETURNING id INTO created;
        IF created IS NOT NULL THEN
          RETURN created;
        END IF;
        SELECT u.id, u.password_hash INTO account FROM users u WHERE lower(u.email) = lower(p_email);
        UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
        IF account.password_hash IS NOT NULL THEN
          UPDATE users SET password_hash = NULL, updated_at = now() WHERE id = account.id;
          UPDATE auth_sessions SET revoked_at = now() WHERE user_id = account.id AND revoked_at IS NULL;
        END IF;
        RETURN account.id;
      END $$`);
    await handOverDefiner(db, GOOGLE_ACCOUNT);

    // A new one-time token (link and code) for the account of an address, replacing the live one of
    // that purpose: `signup` for an unconfirmed account, `recovery` for any but the admin,
    // `email_change` for an account with a pending new address (the token goes to that one). Nothing
    // for an address without such an account; the API answers the same either way.
    await db.query(`
      CREATE FUNCTION auth_issue_token(p_email text, p_kind text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer,
                                       p_ticket text)
      RETURNS TABLE (user_id uuid, recipient text, email text, new_email text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        account record;
      BEGIN
        IF NOT ${TICKET_VALID('issue-token', "lower(p_email) || ':' || p_kind")} THEN
          ${INVALID_TICKET};
        END IF;
        SELECT u.id, u.email, u.new_email INTO account FROM users u
         WHERE lower(u.email) = lower(p_email) AND u.role <> 'admin'
           AND CASE p_kind WHEN 'signup' THEN u.email_confirmed_at IS NULL
                           WHEN 'recovery' THEN true
                           WHEN 'email_change' THEN u.new_email IS NOT NULL
                           ELSE false END
         FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        ${REPLACE_TOKEN('account.id', 'p_kind', "CASE WHEN p_kind = 'email_change' THEN account.new_email ELSE account.email END")}
        UPDATE users SET confirmation_sent_at = CASE WHEN p_kind = 'signup' THEN now() ELSE confirmation_sent_at END,
                         recovery_sent_at = CASE WHEN p_kind = 'recovery' THEN now() ELSE recovery_sent_at END,
                         email_change_sent_at = CASE WHEN p_kind = 'email_change' THEN now() ELSE email_change_sent_at END
         WHERE id = account.id;
        user_id := account.id;
        recipient := CASE WHEN p_kind = 'email_change' THEN account.new_email ELSE account.email END;
        email := account.email;
        new_email := account.new_email;
        RETURN NEXT;
      END $$`);

    // Uses a token once (found by the link's token, or by the address it went to and its code) and
    // does what it stands for: confirms the address (signup, recovery: the mailbox's owner clicked),
    // or makes the pending address the account's (email_change). The code path needs a ticket, made
    // by the API once it has counted the attempt (codes are short); a link's token is its own proof.
    await db.query(`
      CREATE FUNCTION auth_verify_token(p_kind text, p_token_hash bytea, p_email text, p_code_hash bytea, p_ticket text)
      RETURNS TABLE (outcome text, user_id uuid, email text, old_email text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        token record;
        account record;
      BEGIN
        IF p_code_hash IS NOT NULL AND NOT ${TICKET_VALID('verify-code', "lower(p_email) || ':' || p_kind")} THEN
          ${INVALID_TICKET};
        END IF;
        DELETE FROM auth_one_time_tokens t
         WHERE t.id = (SELECT o.id FROM auth_one_time_tokens o
                        WHERE o.kind = p_kind
                          AND CASE WHEN p_code_hash IS NULL THEN o.token_hash = p_token_hash
                                   ELSE lower(o.email) = lower(p_email) AND o.code_hash = p_code_hash END
                        ORDER BY o.created_at DESC LIMIT 1 FOR UPDATE)
        RETURNING t.user_id, t.email, t.expires_at INTO token;
        IF NOT FOUND OR token.expires_at <= now() THEN
          ${ANSWER('invalid')}
        END IF;
        SELECT u.id, u.email, u.new_email INTO account FROM users u WHERE u.id = token.user_id FOR UPDATE;
        IF p_kind = 'email_change' THEN
          IF account.new_email IS NULL OR lower(account.new_email) <> lower(token.email) THEN
            ${ANSWER('invalid')}
          END IF;
          BEGIN
            UPDATE users SET email = account.new_email, new_email = NULL, email_change_sent_at = NULL,
                             email_confirmed_at = now(), updated_at = now()
             WHERE id = account.id;
          EXCEPTION WHEN ${UNIQUE_VIOLATION} THEN
            ${ANSWER('email_taken')}
          END;
          old_email := account.email;
          email := account.new_email;
        ELSE
          UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
          email := account.email;
        END IF;
        outcome := 'verified';
        user_id := account.id;
        RETURN NEXT;
      END $$`);

    // The invitation e-mail's link (its own token, never shown to the inviting merchant): accepts the
    // invitation for the invited address's account, made when there is none (a team member, its
    // address confirmed, no password yet); an existing account must be a team member.
    await db.query(`
      CREATE FUNCTION auth_accept_invitation_link(p_link_hash bytea)
      RETURNS TABLE (outcome text, user_id uuid, email text, store_id uuid)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        invitation record;
        account record;
      BEGIN
        SELECT m.id, m.store_id, m.email INTO invitation FROM store_members m
         WHERE m.invite_link_hash = p_link_hash AND m.status = 'invited' AND m.invite_expires_at > now()
         FOR UPDATE;
        IF NOT FOUND THEN
          ${ANSWER('invalid')}
        END IF;
        INSERT INTO users (email, password_hash, role, provider, email_confirmed_at)
        VALUES (invitation.email, NULL, 'team_member', 'email', now())
        ON CONFLICT ((lower(email))) DO NOTHING;
        SELECT u.id, u.email, u.role INTO account FROM users u WHERE lower(u.email) = lower(invitation.email) FOR UPDATE;
        IF account.role <> 'team_member' THEN
          ${ANSWER('wrong_role')}
        END IF;
        UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = account.id;
        UPDATE store_members SET user_id = account.id, status = 'active', accepted_at = now(), updated_at = now(),
                                 invite_token_hash = NULL, invite_link_hash = NULL
         WHERE id = invitation.id;
        outcome := 'accepted';
        user_id := account.id;
        email := account.email;
        store_id := invitation.store_id;
        RETURN NEXT;
      END $$`);

    // The bound user's new password; its other sessions end. Unless the API checked the current
    // password (p_recent_seconds null), the bound session must have signed in within p_recent_seconds.
    await db.query(`
      CREATE FUNCTION auth_set_password(p_password_hash text, p_recent_seconds integer, p_ticket text)
      RETURNS TABLE (outcome text, ended integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      ${AS_BOUND_USER('set-password', 'me::text')}
        IF p_recent_seconds IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM auth_sessions s WHERE s.id = app_session_id() AND s.created_at > now() - make_interval(secs => p_recent_seconds)) THEN
          ${ANSWER('reauthentication_needed')}
        END IF;
        UPDATE users SET password_hash = p_password_hash, updated_at = now() WHERE id = me;
        UPDATE auth_sessions SET revoked_at = now() WHERE user_id = me AND id <> app_session_id() AND revoked_at IS NULL;
        GET DIAGNOSTICS ended = ROW_COUNT;
        DELETE FROM auth_one_time_tokens WHERE user_id = me AND kind = 'recovery';
        outcome := 'changed';
        RETURN NEXT;
      END $$`);

    // The bound user asks for a new address: kept pending, with a token sent to it, until confirmed.
    await db.query(`
      CREATE FUNCTION auth_request_email_change(p_new_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer,
                                                p_ticket text)
      RETURNS TABLE (outcome text, email text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      ${AS_BOUND_USER('email-change', "me::text || ':' || lower(p_new_email)")}
        IF EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(p_new_email) AND u.id <> me) THEN
          ${ANSWER('email_taken')}
        END IF;
        UPDATE users SET new_email = p_new_email, email_change_sent_at = now() WHERE id = me RETURNING users.email INTO email;
        ${REPLACE_TOKEN('me', "'email_change'", 'p_new_email')}
        outcome := 'requested';
        RETURN NEXT;
      END $$`);

    // Without e-mail confirmation: the bound user's address changes at once.
    await db.query(`
      CREATE FUNCTION auth_change_email(p_new_email text, p_ticket text)
      RETURNS TABLE (outcome text, old_email text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      ${AS_BOUND_USER('email-change-now', "me::text || ':' || lower(p_new_email)")}
        SELECT u.email INTO old_email FROM users u WHERE u.id = me FOR UPDATE;
        BEGIN
          UPDATE users SET email = p_new_email, new_email = NULL, email_change_sent_at = NULL, updated_at = now() WHERE id = me;
        EXCEPTION WHEN ${UNIQUE_VIOLATION} THEN
          ${ANSWER('email_taken')}
        END;
        DELETE FROM auth_one_time_tokens WHERE user_id = me AND kind = 'email_change';
        outcome := 'changed';
        RETURN NEXT;
      END $$`);
    for (const signature of NEW_FUNCTIONS) await handOverDefiner(db, signature);
  }

  /** Back to the first versions of the replaced functions; the columns, table and rights this added go. */
  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, [...NEW_FUNCTIONS, CREATE_USER, PASSWORD_CANDIDATE, GOOGLE_ACCOUNT]);
    await db.query(CREATE_USER_V1);
    await handOverDefiner(db, OLD_CREATE_USER);
    await db.query(PASSWORD_CANDIDATE_V1);
    await handOverDefiner(db, PASSWORD_CANDIDATE);
    await db.query(GOOGLE_ACCOUNT_V1);
    await handOverDefiner(db, GOOGLE_ACCOUNT);
    await db.query(`DROP TABLE auth_one_time_tokens`);
    await db.query(`DROP POLICY users_self_update ON users`);
    await db.query(`REVOKE UPDATE (full_name, user_metadata, updated_at) ON users FROM ${REQUEST_ROLE}`);
    await db.query(`
      ALTER TABLE users
        DROP COLUMN email_confirmed_at,
        DROP COLUMN confirmation_sent_at,
        DROP COLUMN recovery_sent_at,
        DROP COLUMN new_email,
        DROP COLUMN email_change_sent_at,
        DROP COLUMN user_metadata`);
  }
}
