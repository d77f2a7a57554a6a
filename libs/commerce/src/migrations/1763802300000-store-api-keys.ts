import type { MigrationInterface, QueryRunner } from 'typeorm';
import { asSystemRole, dropDefiners, handOverDefiner, PRIVATE_SCHEMA, REQUEST_ROLE, SYSTEM_ROLE } from '@app/core';

const SAFE_PATH = 'SET search_path = pg_catalog, public, pg_temp';
const ADMIN = `(SELECT app_role()) = 'admin'`;
const ME = `(SELECT app_user_id())`;
const MANAGED = `(${ADMIN} OR store_id = ANY ((SELECT app_managed_store_ids())::uuid[]))`;
const PERMISSION_NAMES = ['catalog', 'orders', 'customers', 'ai', 'social', 'webhooks', 'billing'];
const PERMISSIONS = PERMISSION_NAMES.map((p) => `'${p}'`).join(', ');

const AUTHORIZE = 'app_authorize_api_key(text, uuid, text, uuid, boolean, boolean)';
const BIND = 'app_bind_api_key(uuid, text)';
const TOUCH = 'app_touch_api_key(text)';
const KEY_ID = 'app_api_key_id()';
const ACTOR = 'app_actor()';

/**
 * The key context's settings count only while their MAC (this backend, this transaction, key, store,
 * permissions) verifies.
 */
const KEY_VALID = `${PRIVATE_SCHEMA}.api_key_context_valid()`;
const KEY_STORE = `ARRAY[current_setting('app.api_key_store', true)::uuid]`;

/**
 * A store-set function of the policies (migration LeastPrivilege1763800800000) with what a bound store
 * key gets (`keyBranch`, null for nothing). A user's path is unchanged; a key is no user, so
 * `app_user_id()` is null for it.
 */
function storeSet(signature: string, body: string, keyBranch: string | null): string {
  const forKey = keyBranch ? `IF ${KEY_VALID} THEN ${keyBranch} END IF;` : '';
  return `
    CREATE OR REPLACE FUNCTION ${signature} RETURNS uuid[] LANGUAGE plpgsql STABLE SECURITY DEFINER ${SAFE_PATH} AS $$
    DECLARE
      me uuid := app_user_id();
    BEGIN
      IF me IS NULL THEN
        ${forKey}
        RETURN '{}';
      END IF;
      RETURN ARRAY(${body});
    END $$`;
}

const STORE_SETS: { signature: string; body: string; key: string }[] = [
  {
    signature: 'app_store_ids_with(p_permission text)',
    body: `SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members
              WHERE user_id = me AND status = 'active' AND p_permission = ANY (permissions)`,
    key: `IF p_permission = ANY (string_to_array(current_setting('app.api_key_permissions', true), ',')) THEN
            RETURN ${KEY_STORE};
          END IF;`,
  },
  {
    signature: 'app_staff_store_ids()',
    body: `SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active'`,
    key: `RETURN ${KEY_STORE};`,
  },
  {
    signature: 'app_accessible_store_ids()',
    body: `SELECT id FROM stores WHERE owner_id = me
       UNION SELECT store_id FROM store_members WHERE user_id = me AND status = 'active'
       UNION SELECT store_id FROM users WHERE id = me AND role = 'customer' AND store_id IS NOT NULL`,
    key: `RETURN ${KEY_STORE};`,
  },
];

/** The store of a record the guards ask about (as `app_authorize` finds it). */
const RECORD_STORE = `
  IF p_resource = 'product' THEN SELECT r.store_id INTO target FROM products r WHERE r.id = p_record;
  ELSIF p_resource = 'customer' THEN SELECT r.store_id INTO target FROM customers r WHERE r.id = p_record;
  ELSIF p_resource = 'order' THEN SELECT r.store_id INTO target FROM orders r WHERE r.id = p_record;
  ELSIF p_resource = 'webhook' THEN SELECT r.store_id INTO target FROM webhooks r WHERE r.id = p_record;
  ELSIF p_resource = 'social_account' THEN SELECT r.store_id INTO target FROM social_accounts r WHERE r.id = p_record;
  ELSIF p_resource = 'social_post' THEN SELECT r.store_id INTO target FROM social_posts r WHERE r.id = p_record;
  END IF;`;

/** Records a key's context in transaction-local settings, with their MAC. */
const BIND_CONTEXT = `
  PERFORM set_config('app.api_key_id', k.id::text, true), set_config('app.api_key_store', k.store_id::text, true),
          set_config('app.api_key_permissions', array_to_string(k.permissions, ','), true),
          set_config('app.api_key_context', ${PRIVATE_SCHEMA}.api_key_context_mac(
                       k.id::text, k.store_id::text, array_to_string(k.permissions, ',')), true);`;

/** A live key: not revoked, not expired. */
const LIVE = `a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())`;

/**
 * Store keys, for a merchant's servers (docs/security.md § Store keys): a key is a principal of its
 * own, bound to one store and a subset of the member permissions. Its secret is stored as a SHA-256
 * hash; requests may read every column but that one. A request authenticated by a key is bound to it
 * (`app_authorize_api_key`, `app_bind_api_key`): `app_user_id()` is null, and the store sets the
 * policies read give the key's store for the key's permissions only (never the managed stores, never
 * a customer's records). Store events record who acted (`outbox_events.actor`, checked by the
 * database against the bound context). Idempotency keys of a store key are kept under the key's id.
 */
export class StoreApiKeys1763802300000 implements MigrationInterface {
  name = 'StoreApiKeys1763802300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE store_api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        prefix text NOT NULL,
        secret_hash bytea NOT NULL UNIQUE CHECK (octet_length(secret_hash) = 32),
        permissions text[] NOT NULL CHECK (cardinality(permissions) > 0 AND permissions <@ ARRAY[${PERMISSIONS}]),
        created_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX store_api_keys_store_idx ON store_api_keys (store_id, created_at DESC, id DESC)`);
    await db.query(`ALTER TABLE store_api_keys ENABLE ROW LEVEL SECURITY`);
    await db.query(`ALTER TABLE store_api_keys FORCE ROW LEVEL SECURITY`);
    await db.query(`CREATE POLICY store_api_keys_system ON store_api_keys TO ${SYSTEM_ROLE}
      USING (true) WITH CHECK (true)`);
    const visible = `id, store_id, name, prefix, permissions, created_by, created_at, expires_at, last_used_at,
      revoked_at`;
    await db.query(`GRANT SELECT (${visible}) ON store_api_keys TO ${REQUEST_ROLE}`);
    await db.query(`GRANT INSERT (store_id, name, prefix, secret_hash, permissions, created_by, expires_at)
      ON store_api_keys TO ${REQUEST_ROLE}`);
    await db.query(`GRANT UPDATE (revoked_at) ON store_api_keys TO ${REQUEST_ROLE}`);
    // The owners of the store (and the admin); a key itself never sees a key. Revoking is one way.
    await db.query(`CREATE POLICY store_api_keys_read ON store_api_keys FOR SELECT TO ${REQUEST_ROLE}
      USING ${MANAGED}`);
    await db.query(`CREATE POLICY store_api_keys_create ON store_api_keys FOR INSERT TO ${REQUEST_ROLE}
      WITH CHECK (${MANAGED} AND created_by = ${ME})`);
    await db.query(`CREATE POLICY store_api_keys_revoke ON store_api_keys FOR UPDATE TO ${REQUEST_ROLE}
      USING (${MANAGED} AND revoked_at IS NULL) WITH CHECK (${MANAGED} AND revoked_at IS NOT NULL)`);

    // The key context's MAC: another domain than a session's context, so neither passes for the other.
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.api_key_context_mac(p_key text, p_store text, p_permissions text) RETURNS text
      LANGUAGE plpgsql STABLE ${SAFE_PATH} AS $$
      BEGIN
        RETURN encode(${PRIVATE_SCHEMA}.hmac(concat_ws(':', 'api-key-context', pg_backend_pid(),
                      extract(epoch FROM transaction_timestamp()), p_key, p_store, p_permissions)), 'hex');
      END $$`);
    await db.query(`
      CREATE FUNCTION ${PRIVATE_SCHEMA}.api_key_context_valid() RETURNS boolean
      LANGUAGE plpgsql STABLE ${SAFE_PATH} AS $$
      DECLARE
        context text := current_setting('app.api_key_context', true);
      BEGIN
        IF context IS NULL OR context = '' THEN
          RETURN false;
        END IF;
        RETURN sha256(convert_to(context, 'UTF8'))
             = sha256(convert_to(${PRIVATE_SCHEMA}.api_key_context_mac(
                 current_setting('app.api_key_id', true), current_setting('app.api_key_store', true),
                 current_setting('app.api_key_permissions', true)), 'UTF8'));
      END $$`);
    for (const fn of ['api_key_context_mac(text, text, text)', 'api_key_context_valid()']) {
      await db.query(`REVOKE ALL ON FUNCTION ${PRIVATE_SCHEMA}.${fn} FROM PUBLIC`);
      await db.query(`GRANT EXECUTE ON FUNCTION ${PRIVATE_SCHEMA}.${fn} TO ${SYSTEM_ROLE}`);
    }

    // The guards' lookup for a key: the live key whose secret hashes to p_hash, and whether the store
    // the route names (or the record's store) is its store. With p_bind, the transaction is bound to it.
    await db.query(`
      CREATE FUNCTION app_authorize_api_key(p_hash text, p_store uuid, p_resource text, p_record uuid,
                                            p_only_store boolean, p_bind boolean)
      RETURNS TABLE (key_id uuid, key_store uuid, permissions text[], store_id uuid, store_count integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        k record;
        target uuid := p_store;
      BEGIN
        PERFORM ${PRIVATE_SCHEMA}.clean_session();
        IF p_hash IS NULL OR p_hash !~ '^[0-9a-f]{64}$' THEN
          RETURN;
        END IF;
        SELECT a.id, a.store_id, a.permissions INTO k FROM store_api_keys a
         WHERE a.secret_hash = decode(p_hash, 'hex') AND ${LIVE};
        IF NOT FOUND THEN
          RETURN;
        END IF;
        key_id := k.id;
        key_store := k.store_id;
        permissions := k.permissions;
        IF p_resource IS NOT NULL THEN
          target := NULL;
          ${RECORD_STORE}
        ELSIF p_store IS NULL AND p_only_store THEN
          target := k.store_id;
          store_count := 1;
        END IF;
        IF target = k.store_id THEN
          store_id := target;
        END IF;
        IF p_bind THEN
          ${BIND_CONTEXT}
        END IF;
        RETURN NEXT;
      END $$`);
    await handOverDefiner(db, AUTHORIZE);

    // Binding a later transaction of the same request: the key's id with the API's proof (as sessions are bound).
    await db.query(`
      CREATE FUNCTION app_bind_api_key(p_key uuid, p_proof text) RETURNS boolean
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        k record;
      BEGIN
        PERFORM ${PRIVATE_SCHEMA}.clean_session();
        SELECT a.id, a.store_id, a.permissions INTO k FROM store_api_keys a
         WHERE a.id = p_key AND ${LIVE} AND p_proof IS NOT NULL
           AND sha256(convert_to(p_proof, 'UTF8'))
             = sha256(convert_to(encode(${PRIVATE_SCHEMA}.hmac('api_key:' || p_key::text), 'hex'), 'UTF8'));
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        ${BIND_CONTEXT}
        RETURN true;
      END $$`);
    await handOverDefiner(db, BIND);

    // last_used_at, to the minute: one write a minute per key at most, never waiting on a lock.
    await db.query(`
      CREATE FUNCTION app_touch_api_key(p_hash text) RETURNS boolean LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      BEGIN
        IF p_hash IS NULL OR p_hash !~ '^[0-9a-f]{64}$' THEN
          RETURN false;
        END IF;
        UPDATE store_api_keys SET last_used_at = now()
         WHERE id = (SELECT a.id FROM store_api_keys a
                      WHERE a.secret_hash = decode(p_hash, 'hex') AND ${LIVE}
                        AND (a.last_used_at IS NULL OR a.last_used_at < now() - interval '1 minute')
                      FOR UPDATE SKIP LOCKED);
        RETURN FOUND;
      END $$`);
    await handOverDefiner(db, TOUCH);

    await db.query(`
      CREATE FUNCTION app_api_key_id() RETURNS uuid LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
      BEGIN
        RETURN CASE WHEN ${KEY_VALID} THEN current_setting('app.api_key_id', true)::uuid END;
      END $$`);
    await handOverDefiner(db, KEY_ID);
    // Who acts in the bound transaction: a user, a store key, or nobody (the system).
    await db.query(`
      CREATE FUNCTION app_actor() RETURNS jsonb LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
      DECLARE
        me uuid := app_user_id();
      BEGIN
        IF me IS NOT NULL THEN
          RETURN jsonb_build_object('type', 'user', 'id', me);
        END IF;
        IF ${KEY_VALID} THEN
          RETURN jsonb_build_object('type', 'api_key', 'id', current_setting('app.api_key_id', true));
        END IF;
        RETURN NULL;
      END $$`);
    await handOverDefiner(db, ACTOR);

    // The stored event record names who acted (OutboxService writes `(SELECT app_actor())`): a request's
    // event must name the bound caller, checked once per statement, so a request cannot write another actor.
    await db.query(`ALTER TABLE outbox_events ADD COLUMN actor jsonb`);
    await db.query(`CREATE POLICY outbox_events_actor ON outbox_events AS RESTRICTIVE FOR INSERT TO ${REQUEST_ROLE}
      WITH CHECK (actor IS NOT DISTINCT FROM (SELECT app_actor()))`);

    // A key's idempotency keys are its own, kept under its id (ids are random UUIDs: never a user's).
    const ownKeys = `(user_id = ${ME} OR user_id = (SELECT app_api_key_id()))`;
    await db.query(`ALTER POLICY idempotency_keys_own ON idempotency_keys USING ${ownKeys} WITH CHECK ${ownKeys}`);

    await asSystemRole(db, async () => {
      for (const set of STORE_SETS) await db.query(storeSet(set.signature, set.body, set.key));
    });
  }

  async down(db: QueryRunner): Promise<void> {
    await asSystemRole(db, async () => {
      for (const set of STORE_SETS) await db.query(storeSet(set.signature, set.body, null));
    });
    await db.query(`ALTER POLICY idempotency_keys_own ON idempotency_keys
      USING (user_id = ${ME}) WITH CHECK (user_id = ${ME})`);
    await db.query(`DROP POLICY outbox_events_actor ON outbox_events`);
    await db.query(`ALTER TABLE outbox_events DROP COLUMN actor`);
    await dropDefiners(db, [ACTOR, KEY_ID, TOUCH, BIND, AUTHORIZE]);
    await db.query(`DROP FUNCTION ${PRIVATE_SCHEMA}.api_key_context_valid()`);
    await db.query(`DROP FUNCTION ${PRIVATE_SCHEMA}.api_key_context_mac(text, text, text)`);
    await db.query('DROP TABLE store_api_keys');
  }
}
