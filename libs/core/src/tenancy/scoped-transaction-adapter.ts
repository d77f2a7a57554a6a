import type { TransactionalAdapter } from '@nestjs-cls/transactional';
import type { EntityManager } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';
import { Connections, serviceDataSource } from './connections.js';
import { currentDbScope } from './current-scope.js';
import { RequestTransaction } from './request-transaction.js';

/**
 * The TypeORM adapter of @nestjs-cls/transactional, with the connection chosen by the scope: a
 * request's transactions run as the request role and are bound to the session first; the system's
 * run as the service role. Outside a transaction, a request's statements each get a bound transaction
 * of their own; code in neither scope cannot query at all.
 */
export class ScopedTypeOrmAdapter implements TransactionalAdapter<
  Connections,
  EntityManager,
  { isolationLevel?: IsolationLevel }
> {
  connectionToken = Connections;

  optionsFactory = (connections: Connections) => ({
    wrapWithTransaction: async (
      options: { isolationLevel?: IsolationLevel } | undefined,
      fn: (...args: unknown[]) => Promise<unknown>,
      setClient: (client?: EntityManager) => void,
    ) => {
      const scope = currentDbScope();
      if (!scope)
        throw new Error('A transaction was opened outside any database scope (no request user, not the system)');
      // The request's own transaction, opened and bound by the JWT strategy with the caller's lookup.
      const opened = scope.kind === 'request' && !options?.isolationLevel ? RequestTransaction.current() : undefined;
      if (opened) {
        return opened.adopt((manager) => {
          setClient(manager);
          return fn();
        });
      }
      const dataSource = scope.kind === 'system' ? serviceDataSource(connections) : connections.request;
      return dataSource.transaction(options?.isolationLevel as IsolationLevel, async (manager) => {
        setClient(manager);
        if (scope.kind === 'request') await connections.binding.bind(manager, scope.principal);
        return fn();
      });
    },
    getFallbackInstance: (): EntityManager => {
      const scope = currentDbScope();
      if (scope?.kind === 'system') return serviceDataSource(connections).manager;
      if (scope?.kind === 'request') return connections.boundStatements(scope.principal);
      throw new Error(
        scope
          ? 'Sign-in code queried the database outside its transaction'
          : 'The database was queried outside any database scope',
      );
    },
  });
}
