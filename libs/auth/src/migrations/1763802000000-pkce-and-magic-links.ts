import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';

/** Checks `p_ticket` (an API-made HMAC over the purpose and the subject, at most a minute old). */
function ticketValid(purpose: string, subject: string): string {
  return `${PRIVATE_SCHEMA}.ticket_valid('${purpose}', ${subject}, p_ticket)`;
}
const INVALID_TICKET = `RAISE EXCEPTION 'invalid ticket' USING ERRCODE = '42501'`;
const ANSWER = (outcome: string) => `outcome := '${outcome}';
          RETURN NEXT;
          RETURN;`;
/** base64url (no padding) of the SHA-256 of the verifier: RFC 7636's S256. */
const S256 = `translate(rtrim(encode(sha256(convert_to(p_verifier, 'UTF8')), 'base64'), '='), '+/', '-_')`;

const FUNCTIONS = [
  'auth_issue_magic_link(text, bytea, bytea, integer, boolean, text)',
  'auth_flow_await_link(bytea, text, text, text, integer, text)',
  'auth_flow_issue_code(bytea, uuid, text, text, text, bytea, integer, text)',
  'auth_flow_exchange(bytea, text)',
];

/**
 * PKCE and passwordless sign-in. `auth_flow_states` keeps a PKCE sign-in between its steps (requests
 * have no rights on it): first the challenge of an e-mailed link, keyed by the SHA-256 of the link's
 * token, until the link is used; then the auth code (its SHA-256 only) the browser brings back to
 * the app, for the user the link or Google proved, until POST /token?grant_type=pkce exchanges it with
 * its verifier, once. One-time tokens gain the kind `magiclink` (POST /otp's link and 6-digit code).
 */
export class PkceAndMagicLinks1763802000000 implements MigrationInterface {
  name = 'PkceAndMagicLinks1763802000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE auth_one_time_tokens DROP CONSTRAINT auth_one_time_tokens_kind_check`);
    await db.query(`ALTER TABLE auth_one_time_tokens ADD CONSTRAINT auth_one_time_tokens_kind_check
                      CHECK (kind IN ('signup', 'recovery', 'email_change', 'magiclink'))`);
    await db.query(`
      CREATE TABLE auth_flow_states (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        link_hash bytea UNIQUE,
        auth_code_hash bytea UNIQUE,
        user_id uuid REFERENCES users(id) ON DELETE CASCADE,
        authentication_method text NOT NULL
          CHECK (authentication_method IN ('signup', 'recovery', 'email_change', 'magiclink', 'google')),
        code_challenge text NOT NULL CHECK (length(code_challenge) BETWEEN 43 AND 128),
        code_challenge_method text NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CHECK ((link_hash IS NULL) <> (auth_code_hash IS NULL)),
        CHECK (auth_code_hash IS NULL OR user_id IS NOT NULL)
      )`);
    await db.query(`CREATE INDEX auth_flow_states_expires_idx ON auth_flow_states (expires_at)`);
    await db.query(`ALTER TABLE auth_flow_states ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE auth_flow_states FORCE ROW LEVEL SECURITY`);
    await db.query(`REVOKE ALL ON auth_flow_states FROM PUBLIC, ${REQUEST_ROLE}`);
    await db.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON auth_flow_states TO ${SYSTEM_ROLE}`);
    await db.query(`CREATE POLICY auth_flow_states_system ON auth_flow_states TO ${SYSTEM_ROLE}
                       USING (true) WITH CHECK (true)`);

    // A magic link and code for the account of an address, replacing its live one: confirmed accounts
    // only, unless p_any_account (POST /otp with create_user, which has just made or reset the account).
    // Never the admin. Nothing for another address; the API answers the same either way.
    await db.query(`
      CREATE FUNCTION auth_issue_magic_link(p_email text, p_token_hash bytea, p_code_hash bytea, p_ttl_seconds integer,
                                            p_any_account boolean, p_ticket text)
      RETURNS TABLE (user_id uuid, email text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        account record;
      BEGIN
        IF NOT ${ticketValid('issue-token', "lower(p_email) || ':magiclink'")} THEN
          ${INVALID_TICKET};
        END IF;
        SELECT u.id, u.email INTO account FROM users u
         WHERE lower(u.email) = lower(p_email) AND u.role <> 'admin'
           AND (p_any_account OR u.email_confirmed_at IS NOT NULL)
         FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        INSERT INTO auth_one_time_tokens (user_id, kind, email, token_hash, code_hash, expires_at)
        VALUES (account.id, 'magiclink', account.email, p_token_hash, p_code_hash,
                now() + make_interval(secs => p_ttl_seconds))
        ON CONFLICT (user_id, kind) DO UPDATE
          SET email = EXCLUDED.email, token_hash = EXCLUDED.token_hash, code_hash = EXCLUDED.code_hash,
              created_at = now(), expires_at = EXCLUDED.expires_at;
        user_id := account.id;
        email := account.email;
        RETURN NEXT;
      END $$`);

    // A PKCE challenge waiting for the e-mailed link of that token (issued in the same transaction).
    // Expired flows are tidied here, an hour after their end.
    await db.query(`
      CREATE FUNCTION auth_flow_await_link(p_link_hash bytea, p_kind text, p_challenge text, p_method text,
                                           p_ttl_seconds integer, p_ticket text)
      RETURNS void
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      BEGIN
        IF NOT ${ticketValid('flow-link', "encode(p_link_hash, 'hex')")} THEN
          ${INVALID_TICKET};
        END IF;
        DELETE FROM auth_flow_states WHERE expires_at < now() - interval '1 hour';
        INSERT INTO auth_flow_states (link_hash, authentication_method, code_challenge, code_challenge_method,
                                      expires_at)
        VALUES (p_link_hash, p_kind, p_challenge, p_method, now() + make_interval(secs => p_ttl_seconds));
      END $$`);

    // The user the API has just proven (by the link of p_link_hash, or by Google) gets an auth code:
    // for the challenge waiting for that link (false when none waits: the implicit flow), or for the
    // challenge given (Google, p_link_hash null). The code lives p_ttl_seconds.
    await db.query(`
      CREATE FUNCTION auth_flow_issue_code(p_link_hash bytea, p_user uuid, p_kind text, p_challenge text, p_method text,
                                           p_code_hash bytea, p_ttl_seconds integer, p_ticket text)
      RETURNS boolean
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      BEGIN
        IF NOT ${ticketValid('flow-code', 'p_user::text')} THEN
          ${INVALID_TICKET};
        END IF;
        IF p_link_hash IS NOT NULL THEN
          UPDATE auth_flow_states
             SET link_hash = NULL, auth_code_hash = p_code_hash, user_id = p_user, created_at = now(),
                 expires_at = now() + make_interval(secs => p_ttl_seconds)
           WHERE link_hash = p_link_hash AND expires_at > now();
          RETURN FOUND;
        END IF;
        INSERT INTO auth_flow_states (auth_code_hash, user_id, authentication_method, code_challenge,
                                      code_challenge_method, expires_at)
        VALUES (p_code_hash, p_user, p_kind, p_challenge, p_method, now() + make_interval(secs => p_ttl_seconds));
        RETURN true;
      END $$`);

    // The exchange: the auth code with the verifier of its challenge, once. The code and verifier are
    // the proof (no ticket). A wrong verifier leaves the code to its owner; an expired one is refused.
    await db.query(`
      CREATE FUNCTION auth_flow_exchange(p_code_hash bytea, p_verifier text)
      RETURNS TABLE (outcome text, user_id uuid, kind text)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        flow record;
        proof text;
      BEGIN
        SELECT f.id, f.user_id, f.authentication_method, f.code_challenge, f.code_challenge_method, f.expires_at
          INTO flow
          FROM auth_flow_states f WHERE f.auth_code_hash = p_code_hash FOR UPDATE;
        IF NOT FOUND THEN
          ${ANSWER('not_found')}
        END IF;
        IF flow.expires_at <= now() THEN
          ${ANSWER('expired')}
        END IF;
        proof := CASE flow.code_challenge_method WHEN 's256' THEN ${S256} ELSE p_verifier END;
        IF proof IS NULL OR proof IS DISTINCT FROM flow.code_challenge THEN
          ${ANSWER('bad_verifier')}
        END IF;
        DELETE FROM auth_flow_states WHERE id = flow.id;
        outcome := 'exchanged';
        user_id := flow.user_id;
        kind := flow.authentication_method;
        RETURN NEXT;
      END $$`);
    for (const signature of FUNCTIONS) await handOverDefiner(db, signature);
  }

  /** The functions and flow states go; so do magic-link tokens, with the kind. */
  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, FUNCTIONS);
    await db.query(`DROP TABLE auth_flow_states`);
    await db.query(`SET ROLE ${SYSTEM_ROLE}`);
    try {
      await db.query(`DELETE FROM auth_one_time_tokens WHERE kind = 'magiclink'`);
    } finally {
      await db.query('RESET ROLE');
    }
    await db.query(`ALTER TABLE auth_one_time_tokens DROP CONSTRAINT auth_one_time_tokens_kind_check`);
    await db.query(`ALTER TABLE auth_one_time_tokens ADD CONSTRAINT auth_one_time_tokens_kind_check
                      CHECK (kind IN ('signup', 'recovery', 'email_change'))`);
  }
}
