import type pg from 'pg';
import { call } from '../lib/http.js';
import { countedLoad, type LoadResult } from '../lib/load.js';

export interface CreditSettings {
  durationSec: number;
  warmupSec: number;
  connections: number;
  /** Parallel calls against a store whose balance covers only some of them. */
  contention: number;
}

export interface CreditResults {
  load: LoadResult;
  /** Balance and ledger after the load agree with the calls answered 200. */
  ledger: { spent: number; charged: number; refunded: number; succeeded: number; cost: number; consistent: boolean };
  /** `contention` parallel calls on the welcome balance: successes × cost never exceeds it; the balance ends ≥ 0. */
  overdraft: {
    calls: number;
    succeeded: number;
    refused402: number;
    other: number;
    balanceBefore: number;
    balanceAfter: number;
    consistent: boolean;
  };
}

const FUNCTION = 'research-social-context';
const COST = 2;
const body = (storeId: string) =>
  JSON.stringify({ query: 'autumn linen dresses', platforms: ['instagram', 'tiktok'], store_id: storeId });

async function balance(url: string, token: string, storeId: string): Promise<number> {
  return (await call('GET', `${url}/functions/v1/credits?store_id=${storeId}`, { token })).body.balance as number;
}

async function ledgerTotals(
  db: pg.Pool,
  storeId: string,
): Promise<{ charged: number; refunded: number; charges: number }> {
  const rows = await db.query<{ kind: string; count: string; sum: string }>(
    `SELECT kind, count(*), sum(amount) FROM credit_ledger WHERE store_id = $1 AND function = $2 GROUP BY kind`,
    [storeId, FUNCTION],
  );
  const of = (kind: string) => rows.rows.find((row) => row.kind === kind);
  return {
    charged: -Number(of('charge')?.sum ?? 0),
    refunded: Number(of('refund')?.sum ?? 0),
    charges: Number(of('charge')?.count ?? 0),
  };
}

/**
 * Parallel AI calls with the local provider (`research-social-context`, 2 credits): throughput, then
 * the books — the balance moved by exactly cost × successes and the ledger says the same — and a
 * burst of parallel calls against a small balance that must never overdraw it.
 */
export async function measureCredits(
  url: string,
  db: pg.Pool,
  funded: { token: string; storeId: string },
  small: { token: string; storeId: string },
  settings: CreditSettings,
): Promise<CreditResults> {
  const send = () =>
    fetch(`${url}/functions/v1/${FUNCTION}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${funded.token}`, 'content-type': 'application/json' },
      body: body(funded.storeId),
    }).then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    });
  // The warm-up spends credits too, so the books are read after it, around the measured run only.
  await countedLoad(send, settings.connections, settings.warmupSec);
  const before = await balance(url, funded.token, funded.storeId);
  const ledgerBefore = await ledgerTotals(db, funded.storeId);
  const measured = await countedLoad(send, settings.connections, settings.durationSec);
  const after = await balance(url, funded.token, funded.storeId);
  const ledgerAfter = await ledgerTotals(db, funded.storeId);
  const charged = ledgerAfter.charged - ledgerBefore.charged;
  const refunded = ledgerAfter.refunded - ledgerBefore.refunded;
  const succeeded = measured.status['2xx'];
  const spent = before - after;

  const smallBefore = await balance(url, small.token, small.storeId);
  const answers = await Promise.all(
    Array.from({ length: settings.contention }, () =>
      fetch(`${url}/functions/v1/${FUNCTION}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${small.token}`, 'content-type': 'application/json' },
        body: body(small.storeId),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      }),
    ),
  );
  const smallAfter = await balance(url, small.token, small.storeId);
  const ok = answers.filter((status) => status >= 200 && status < 300).length;
  const refused402 = answers.filter((status) => status === 402).length;

  return {
    load: measured,
    ledger: {
      spent,
      charged,
      refunded,
      succeeded,
      cost: COST,
      consistent: spent === succeeded * COST && charged - refunded === spent,
    },
    overdraft: {
      calls: settings.contention,
      succeeded: ok,
      refused402,
      other: settings.contention - ok - refused402,
      balanceBefore: smallBefore,
      balanceAfter: smallAfter,
      consistent:
        ok === Math.floor(smallBefore / COST) &&
        smallAfter === smallBefore - ok * COST &&
        ok + refused402 === settings.contention,
    },
  };
}
