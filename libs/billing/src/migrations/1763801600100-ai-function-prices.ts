import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropDefiners, handOverDefiner, PRIVATE_SCHEMA, SYSTEM_ROLE } from '@app/core';
import { CREDIT_COSTS, DEFAULT_HOURLY_LIMITS } from '../credit-costs.js';
import { chargeCreditsFunction, listedFor } from './1763801000000-credit-functions.js';

const SIGNATURE = 'app_charge_credits(uuid, text, text)';

/** An entry of an installation setting, by function name: null for a name it does not list. */
const installed = (column: string) => `(SELECT (i.${column} ->> p_function)::integer FROM ${PRIVATE_SCHEMA}.installation i)`;

/**
 * The AI functions' prices as the installation's data instead of a list written into
 * `app_charge_credits`: a function declares its cost and hourly maximum in its own folder (libs/ai),
 * and every process writes that list where the function reads it at start (CreditsService, beside
 * the maxima and the welcome credits), so a new AI function needs no migration. The caller still
 * names no price: the list sits in the private schema, which requests cannot read or write.
 */
export class AiFunctionPrices1763801600100 implements MigrationInterface {
  name = 'AiFunctionPrices1763801600100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE ${PRIVATE_SCHEMA}.installation ADD COLUMN ai_credit_costs jsonb NOT NULL DEFAULT '{}'`);
    await db.query(`GRANT UPDATE (ai_credit_costs) ON ${PRIVATE_SCHEMA}.installation TO ${SYSTEM_ROLE}`);
    await dropDefiners(db, [SIGNATURE]);
    await db.query(chargeCreditsFunction(installed('ai_credit_costs'), installed('ai_hourly_limits')));
    await handOverDefiner(db, SIGNATURE);
  }

  async down(db: QueryRunner): Promise<void> {
    await dropDefiners(db, [SIGNATURE]);
    await db.query(
      chargeCreditsFunction(listedFor(CREDIT_COSTS), `coalesce(${installed('ai_hourly_limits')}, ${listedFor(DEFAULT_HOURLY_LIMITS)})`),
    );
    await handOverDefiner(db, SIGNATURE);
    await db.query(`ALTER TABLE ${PRIVATE_SCHEMA}.installation DROP COLUMN ai_credit_costs`);
  }
}
