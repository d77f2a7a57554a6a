import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA } from '@app/core';
import { USAGE_WINDOW_SECONDS } from '../credit-costs.js';

const CHARGE = 'app_charge_credits(uuid, text, text)';
const REFUND = 'app_refund_credits(uuid)';

/** An entry of an installation setting, by function name: null for a name it does not list. */
const installed = (column: string) =>
  `(SELECT (i.${column} ->> p_function)::integer
      FROM ${PRIVATE_SCHEMA}.installation i)`;

/** Locks the store's account row (making it, empty, if missing) and reads its balance into `current`. */
const LOCK_ACCOUNT = `
  SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, 0) ON CONFLICT DO NOTHING;
    SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  END IF;`;

/**
 * `app_charge_credits` as migration AiFunctionPrices1763801600100 left it, but for who is recorded:
 * with `keys`, the bound store key beside the user (`api_key_id`), else the user alone.
 */
const chargeFunction = (keys: boolean) => `
      CREATE FUNCTION app_charge_credits(p_store uuid, p_function text, p_reference text)
      RETURNS TABLE (outcome text, charge_id uuid, balance integer, used integer, retry_after double precision,
                     hourly_limit integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        price integer := ${installed('ai_credit_costs')};
        p_limit integer := ${installed('ai_hourly_limits')};
        current integer;
      BEGIN
        hourly_limit := p_limit;
        IF price IS NULL OR p_limit IS NULL THEN
          RAISE EXCEPTION 'not an AI function: %', p_function USING ERRCODE = '22023';
        END IF;
        IF NOT (app_role() = 'admin' OR p_store = ANY (app_store_ids_with('ai'))) THEN
          outcome := 'forbidden';
          RETURN NEXT;
          RETURN;
        END IF;
        ${LOCK_ACCOUNT}
        balance := current;
        SELECT count(*)::int,
               EXTRACT(EPOCH FROM min(c.created_at) + make_interval(secs => ${USAGE_WINDOW_SECONDS})
                                  - clock_timestamp())::float8
          INTO used, retry_after
          FROM credit_ledger c
         WHERE c.store_id = p_store AND c.kind = 'charge' AND c.function = p_function
           AND c.created_at > clock_timestamp() - make_interval(secs => ${USAGE_WINDOW_SECONDS})
           AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.refund_of = c.id);
        IF used >= p_limit THEN
          outcome := 'rate_limited';
          RETURN NEXT;
          RETURN;
        END IF;
        IF current < price THEN
          outcome := 'insufficient';
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO credit_ledger (store_id, kind, amount, function, reference, created_by${keys ? ', api_key_id' : ''})
        VALUES (p_store, 'charge', -price, p_function, p_reference, app_user_id()${keys ? ', app_api_key_id()' : ''})
        RETURNING id INTO charge_id;
        UPDATE credit_accounts a SET balance = a.balance - price, updated_at = clock_timestamp()
         WHERE a.store_id = p_store RETURNING a.balance INTO current;
        outcome := 'charged';
        balance := current;
        RETURN NEXT;
      END $$`;

/** Whose charge the caller may refund: the user's own, and with `keys` the bound store key's own. */
const ownCharge = (keys: boolean) =>
  keys ? '(c.created_by = app_user_id() OR c.api_key_id = app_api_key_id())' : 'c.created_by = app_user_id()';

/** `app_refund_credits`: only the caller's own charge, within 15 minutes, once. */
const refundFunction = (keys: boolean) => `
      CREATE FUNCTION app_refund_credits(p_charge uuid) RETURNS integer
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        charge record;
        current integer;
        p_store uuid;
      BEGIN
        SELECT c.id, c.store_id, c.amount, c.function INTO charge FROM credit_ledger c
         WHERE c.id = p_charge AND c.kind = 'charge' AND ${ownCharge(keys)}
           AND c.created_at > clock_timestamp() - interval '15 minutes';
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        p_store := charge.store_id;
        ${LOCK_ACCOUNT}
        INSERT INTO credit_ledger (store_id, kind, amount, function, refund_of)
        VALUES (p_store, 'refund', -charge.amount, charge.function, charge.id)
        ON CONFLICT (refund_of) DO NOTHING;
        IF FOUND THEN
          UPDATE credit_accounts a SET balance = a.balance - charge.amount, updated_at = clock_timestamp()
           WHERE a.store_id = p_store RETURNING a.balance INTO current;
        END IF;
        RETURN current;
      END $$`;

/**
 * AI credits for store keys (docs/security.md § Store keys): a key holding `ai` is charged for its
 * own store as a team member is (the store set `app_store_ids_with('ai')` already gives a bound key
 * its store for that permission, and nothing else). The ledger records the key as the charge's actor
 * (`api_key_id`, beside `created_by` for a user; at most one of them), and a refund takes only the
 * caller's own charge: a user's, or the bound key's. No foreign key: the ledger is append-only, and a
 * key is never deleted but with its store (whose entries go with it).
 */
export class StoreKeyCredits1763802600000 implements MigrationInterface {
  name = 'StoreKeyCredits1763802600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE credit_ledger ADD COLUMN api_key_id uuid`);
    await db.query(`ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_one_actor
      CHECK (created_by IS NULL OR api_key_id IS NULL)`);
    await this.replace(db, true);
  }

  async down(db: QueryRunner): Promise<void> {
    await this.replace(db, false);
    await db.query(`ALTER TABLE credit_ledger DROP COLUMN api_key_id`);
  }

  private async replace(db: QueryRunner, keys: boolean): Promise<void> {
    await dropDefiners(db, [CHARGE, REFUND]);
    await db.query(chargeFunction(keys));
    await handOverDefiner(db, CHARGE);
    await db.query(refundFunction(keys));
    await handOverDefiner(db, REFUND);
  }
}
