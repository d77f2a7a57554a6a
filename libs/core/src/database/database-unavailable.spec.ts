import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable.js';

/** A TCP server on 127.0.0.1 that accepts connections and never says a word: a database that hangs. */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

/** A port nobody listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const { server, port } = await silentServer();
  server.close();
  await once(server, 'close');
  return port;
}

describe('isDatabaseUnavailable', () => {
  it('is true for a refused connection, as pg reports it', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await closedPort(), user: 'nobody' });
    const error = await client.connect().then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it(
    'is true when the pool cannot connect, or cannot hand ' + 'out a connection, within connectionTimeoutMillis',
    async () => {
      const { server, port, sockets } = await silentServer();
      const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'nobody', max: 1, connectionTimeoutMillis: 100 });
      pool.on('error', () => undefined);
      try {
        // The first waits for a server that never answers; the second for a pool slot the first holds.
        const [connecting, waiting] = await Promise.all([
          pool.connect().catch((error: Error) => error),
          pool.connect().catch((error: Error) => error),
        ]);
        expect((connecting as Error).message).toMatch(/timeout/);
        expect((waiting as Error).message).toMatch(/timeout/);
        expect(isDatabaseUnavailable(connecting)).toBe(true);
        expect(isDatabaseUnavailable(waiting)).toBe(true);
      } finally {
        for (const socket of sockets) socket.destroy();
        await pool.end();
        server.close();
      }
    },
  );

  it(
    'is true for a server shutting down or out of connections, ' +
      'and for a connection cut mid-query, inside TypeORM errors too',
    () => {
      const adminShutdown = Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
      expect(isDatabaseUnavailable(adminShutdown)).toBe(true);
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], adminShutdown))).toBe(true);
      expect(
        isDatabaseUnavailable(Object.assign(new Error('the database system is starting up'), { code: '57P03' })),
      ).toBe(true);
      expect(
        isDatabaseUnavailable(Object.assign(new Error('sorry, too many clients already'), { code: '53300' })),
      ).toBe(true);
      expect(isDatabaseUnavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
      expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
      // A transaction whose connection failed between two statements.
      expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
      expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
      expect(isDatabaseUnavailable(new Error('wrapped', { cause: new Error('Connection terminated') }))).toBe(true);
      // A refused localhost is tried over IPv4 and IPv6: Node reports both in an AggregateError.
      expect(
        isDatabaseUnavailable(new AggregateError([Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })], '')),
      ).toBe(true);
    },
  );

  it('is false for errors of the statement or the request', () => {
    const uniqueViolation = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
    });
    expect(isDatabaseUnavailable(uniqueViolation)).toBe(false);
    expect(isDatabaseUnavailable(new QueryFailedError('INSERT', [], uniqueViolation))).toBe(false);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      ),
    ).toBe(false);
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
