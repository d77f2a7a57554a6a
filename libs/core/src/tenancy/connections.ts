import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { RequestPrincipal } from './principal.js';
import { RequestBinding } from './request-binding.js';

/** The name of the workers' connection (DATABASE_SERVICE_URL); the default one is the request role's. */
export const SERVICE_CONNECTION = 'service';

/**
 * The application's two connections: the request role's and the service role's. Private to the
 * tenancy module (libs/core/src/tenancy): @app/core does not export it, eslint.config.js refuses its
 * import anywhere else, and service-connection-reach.spec.ts checks both. Code outside queries through
 * TenantDb, SystemDb or ScopedDb, which take the connection the current scope allows.
 */
@Injectable()
export class Connections {
  constructor(
    @InjectDataSource() readonly request: DataSource,
    @InjectDataSource(SERVICE_CONNECTION) private readonly service: DataSource,
    readonly binding: RequestBinding,
  ) {}

  /**
   * For request code outside a transaction (routes that commit in steps): each statement runs in a
   * bound transaction of its own, so it is as row-level-secured as inside one.
   */
  boundStatements(principal: RequestPrincipal): EntityManager {
    const query = (sql: string, parameters?: unknown[]) =>
      this.request.transaction(async (manager) => {
        await this.binding.bind(manager, principal);
        return manager.query(sql, parameters);
      });
    return { query } as unknown as EntityManager;
  }
}

/** The service login's DataSource, for the system scope alone (Connections keeps it private). */
export function serviceDataSource(connections: Connections): DataSource {
  return connections['service'];
}
