import pg from 'pg';
import { describedOnce } from './named-statements.js';
import { parseTextArray, TEXT_ARRAY_OID, VARCHAR_ARRAY_OID } from './text-arrays.js';
import { parseTimestamp, parseTimestamptz, TIMESTAMP_OID, TIMESTAMPTZ_OID } from './timestamps.js';

/**
 * pg's type parsers with faster ones for what every answer is full of: timestamps (timestamps.ts, in place
 * of postgres-date's regular expressions) and text arrays (text-arrays.ts, in place of postgres-array's
 * character-by-character parse), each giving the same value as pg's own. The `types` of the API's pools
 * (the tenancy module's two connections). Every other type, and the binary format, parse as pg's defaults do.
 */
export const apiTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
    if (format !== 'binary') {
      if (oid === TIMESTAMPTZ_OID) return parseTimestamptz;
      if (oid === TIMESTAMP_OID) return parseTimestamp;
      if (oid === TEXT_ARRAY_OID || oid === VARCHAR_ARRAY_OID) return parseTextArray;
    }
    return pg.types.getTypeParser(oid, format);
  },
};

/** `apiTypes` for pools whose connections are PostgreSQL sessions of their own (`describedOnce`). */
export const apiTypesDescribedOnce = describedOnce(apiTypes);
