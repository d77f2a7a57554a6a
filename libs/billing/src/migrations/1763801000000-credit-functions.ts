import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA } from '@app/core';
import { CREDIT_COSTS, DEFAULT_HOURLY_LIMITS, USAGE_WINDOW_SECONDS } from '../credit-costs.js';
import { MAX_GRANT, MAX_BALANCE } from '../credit-limits.js';

/** A figure per function, written into the SQL: null for a name the list does not have. */
export const listedFor = (figures: Readonly<Record<string, number>>) =>
  `CASE p_function ${Object.entries(figures)
    .map(([fn, figure]) => `WHEN '${fn}' THEN ${figure}`)
    .join(' ')} END`;

/** The cost of a function, from the price list (a caller cannot name its own price). */
const COST_OF = listedFor(CREDIT_COSTS);

/** The hourly maximum: the installation's (AI_HOURLY_LIMITS, written at start), else the listed default. */
const LIMIT_OF = `coalesce((SELECT (i.ai_hourly_limits ->> p_function)::integer FROM ${PRIVATE_SCHEMA}.installation i),
  ${listedFor(DEFAULT_HOURLY_LIMITS)})`;

/** Locks the store's account row (making it, empty, if missing) and reads its balance into `current`. */
const LOCK_ACCOUNT = `
  SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, 0) ON CONFLICT DO NOTHING;
    SELECT a.balance INTO current FROM credit_accounts a WHERE a.store_id = p_store FOR UPDATE;
  END IF;`;

/**
 * `app_charge_credits(store, function, reference)`: the charge of a caller holding `ai` on the store,
 * atomically with the function's hourly maximum and the balance. `price` and `limit` are SQL
 * expressions of `p_function` (null: not an AI function).
 */
export const chargeCreditsFunction = (price: string, limit: string) => `
      CREATE FUNCTION app_charge_credits(p_store uuid, p_function text, p_reference text)
      RETURNS TABLE (outcome text, charge_id uuid, balance integer, used integer, retry_after double precision, hourly_limit integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        price integer := ${price};
        p_limit integer := ${limit};
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
               EXTRACT(EPOCH FROM min(c.created_at) + make_interval(secs => ${USAGE_WINDOW_SECONDS}) - clock_timestamp())::float8
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
        INSERT INTO credit_ledger (store_id, kind, amount, function, reference, created_by)
        VALUES (p_store, 'charge', -price, p_function, p_reference, app_user_id())
        RETURNING id INTO charge_id;
        UPDATE credit_accounts a SET balance = a.balance - price, updated_at = clock_timestamp()
         WHERE a.store_id = p_store RETURNING a.balance INTO current;
        outcome := 'charged';
        balance := current;
        RETURN NEXT;
      END $$`;

/**
 * The ledger's writes as narrow functions the request role may call (it may only read the ledger):
 * a charge by a caller holding `ai` on the store, at the function's listed price, atomically with
 * the hourly maximum and the balance; a refund of the caller's own recent charge, once; an admin's
 * grant. Each locks the store's account row first, so a store's changes run one after another.
 */
export class CreditFunctions1763801000000 implements MigrationInterface {
  name = 'CreditFunctions1763801000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(chargeCreditsFunction(COST_OF, LIMIT_OF));
    await handOverDefiner(db, 'app_charge_credits(uuid, text, text)');

    // The welcome grant, from the transaction that creates the store: the amount is the installation's
    // (STORE_WELCOME_CREDITS, written at start), never the caller's.
    await dropDefiners(db, ['app_open_credit_account(uuid, integer)']);
    await db.query(`
      CREATE FUNCTION app_open_credit_account(p_store uuid) RETURNS void
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      DECLARE
        amount integer := (SELECT i.welcome_credits FROM ${PRIVATE_SCHEMA}.installation i);
      BEGIN
        IF app_role() IS DISTINCT FROM 'admin' AND NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store AND s.owner_id = app_user_id()) THEN
          RAISE EXCEPTION 'only the store owner opens its credit account' USING ERRCODE = '42501';
        END IF;
        INSERT INTO credit_accounts (store_id, balance) VALUES (p_store, coalesce(amount, 0)) ON CONFLICT (store_id) DO NOTHING;
        IF FOUND AND amount > 0 THEN
          INSERT INTO credit_ledger (store_id, kind, amount, reference) VALUES (p_store, 'grant', amount, 'welcome');
        END IF;
      END $$`);
    await handOverDefiner(db, 'app_open_credit_account(uuid)');

    // Only the charge's own user, within 15 minutes (a provider call with its retries takes less), once.
    await db.query(`
      CREATE FUNCTION app_refund_credits(p_charge uuid) RETURNS integer
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        charge record;
        current integer;
        p_store uuid;
      BEGIN
        SELECT c.id, c.store_id, c.amount, c.function INTO charge FROM credit_ledger c
         WHERE c.id = p_charge AND c.kind = 'charge' AND c.created_by = app_user_id()
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
      END $$`);
    await handOverDefiner(db, 'app_refund_credits(uuid)');

    await db.query(`
      CREATE FUNCTION app_grant_credits(p_store uuid, p_amount integer, p_reason text)
      RETURNS TABLE (outcome text, balance integer)
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER AS $$
      #variable_conflict use_column
      DECLARE
        current integer;
      BEGIN
        IF app_role() IS DISTINCT FROM 'admin' THEN
          outcome := 'forbidden';
          RETURN NEXT;
          RETURN;
        END IF;
        IF p_amount IS NULL OR p_amount < 1 OR p_amount > ${MAX_GRANT} THEN
          RAISE EXCEPTION 'a grant is 1 to ${MAX_GRANT} credits' USING ERRCODE = '22023';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM stores s WHERE s.id = p_store) THEN
          outcome := 'not_found';
          RETURN NEXT;
          RETURN;
        END IF;
        ${LOCK_ACCOUNT}
        IF current::bigint + p_amount > ${MAX_BALANCE} THEN
          outcome := 'too_large';
          balance := current;
          RETURN NEXT;
          RETURN;
        END IF;
        INSERT INTO credit_ledger (store_id, kind, amount, reference, created_by) VALUES (p_store, 'grant', p_amount, p_reason, app_user_id());
        UPDATE credit_accounts a SET balance = a.balance + p_amount, updated_at = clock_timestamp()
         WHERE a.store_id = p_store RETURNING a.balance INTO current;
        outcome := 'granted';
        balance := current;
        RETURN NEXT;
      END $$`);
    await handOverDefiner(db, 'app_grant_credits(uuid, integer, text)');
  }

  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, [
      'app_charge_credits(uuid, text, text)',
      'app_refund_credits(uuid)',
      'app_grant_credits(uuid, integer, text)',
      'app_open_credit_account(uuid)',
    ]);
  }
}
