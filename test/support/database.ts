import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SERVICE_CONNECTION, sessionProof } from '@app/core';
import type { TestApp } from './app.js';

/**
 * The app's service-role connection: tests inspect and arrange rows of every store through it (the
 * system role's policies let it see all rows), never through the request role.
 */
export const SYSTEM_DATA_SOURCE = getDataSourceToken(SERVICE_CONNECTION);

/** The session id an access token names (its `session_id` claim). */
export function sessionIdOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString('utf8')).session_id;
}

export type Query = (sql: string, params?: unknown[]) => Promise<any>;

/**
 * Runs `work` in a transaction opened exactly as a request's: on the request role's connection, bound
 * to the session of `accessToken` by app_bind_request with the proof only the API can make.
 */
export function asRequest<T>(api: TestApp, accessToken: string, work: (query: Query) => Promise<T>): Promise<T> {
  const sessionId = sessionIdOf(accessToken);
  return api.app.get<DataSource>(getDataSourceToken()).transaction(async (manager) => {
    const bound = await manager.query('SELECT user_id, role FROM app_bind_request($1, $2)', [
      sessionId,
      sessionProof(api.config.requestBindingKey!, sessionId),
    ]);
    if (bound.length !== 1) throw new Error('the session could not be bound');
    return work((sql, params) => manager.query(sql, params));
  });
}
