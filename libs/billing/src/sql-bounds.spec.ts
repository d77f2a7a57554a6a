import fs from 'node:fs';
import { USAGE_WINDOW_SECONDS } from './credit-costs.js';
import { MAX_BALANCE, MAX_GRANT } from './credit-limits.js';

/**
 * The bounds the database enforces are written into sql/credits.sql as numbers; the API states and
 * checks the same ones from these constants. A change to one side alone fails here.
 */
describe('sql/credits.sql and the billing constants', () => {
  const sql = fs.readFileSync(new URL('./sql/credits.sql', import.meta.url), 'utf8');

  it('counts charges over the same window the API reports', () => {
    const windows = [...sql.matchAll(/make_interval\(secs => (\d+)\)/g)].map((match) => Number(match[1]));
    expect(windows.length).toBeGreaterThanOrEqual(2);
    expect(new Set(windows)).toEqual(new Set([USAGE_WINDOW_SECONDS]));
  });

  it('caps a grant and a balance where the API does', () => {
    expect(sql).toContain(`p_amount > ${MAX_GRANT} THEN`);
    expect(sql).toContain(`current::bigint + p_amount > ${MAX_BALANCE} THEN`);
  });
});
