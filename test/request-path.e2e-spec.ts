import { ClsService } from 'nestjs-cls';
import pg from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { CallerLookup, RequestTransaction } from '@app/core';
import { eventually } from './support/social.js';
import { merchantWithStore, signUp, startApp, uniqueEmail, type HttpResult, type TestApp } from './support/app.js';
import { sessionIdOf, SYSTEM_DATA_SOURCE } from './support/database.js';

type Statement = { text: string };

/**
 * The request path's cost in the database: a request whose handler runs in one transaction opens it
 * with the caller's lookup (identity, store access and the row-level-security binding in one round
 * trip), so an authenticated read is three statements — fewer than the four of a bare `pg` server
 * doing the same (BEGIN, bind, query, COMMIT). A request a guard refuses gives its transaction back.
 */
describe('the request path', () => {
  let api: TestApp;
  let db: DataSource;
  const sent: Statement[] = [];
  let query: ReturnType<typeof vi.spyOn>;

  beforeAll(async () => {
    // Two request connections: a refused request that kept its transaction would soon starve the rest.
    api = await startApp({ DATABASE_POOL_SIZE: '2' });
    db = api.app.get<DataSource>(SYSTEM_DATA_SOURCE);
    const original = pg.Client.prototype.query;
    // Records what the request login's connections send (not a stand-in: every call goes through).
    query = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const name = (this as unknown as { connectionParameters: { application_name?: string } }).connectionParameters
        .application_name;
      if (name?.endsWith('-request')) {
        const first = args[0] as string | { text: string };
        sent.push({ text: typeof first === 'string' ? first : first.text });
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original);
  });
  afterAll(async () => {
    query.mockRestore();
    await api.close();
  });

  /** The statements the request login sent while `work` ran. */
  async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
    sent.length = 0;
    await work();
    return sent.map((statement) => statement.text.replace(/\s+/g, ' ').trim());
  }

  /** The request login's sessions that sit in an open transaction (a transaction nobody closed). */
  async function idleInTransaction(): Promise<number> {
    const [row] = await db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE '%-request' AND state LIKE 'idle in transaction%'`,
    );
    return row.n;
  }

  it(
    'an authenticated read is three statements: the ' + 'transaction opened with the lookup, the page, the commit',
    async () => {
      const { token, storeId } = await merchantWithStore(api);
      await api.request('POST', `/functions/v1/stores/${storeId}/products`, {
        token,
        body: { name: 'Mug', price: 12 },
      });
      let page: HttpResult | undefined;
      const statements = await statementsOf(async () => {
        page = await api.request('GET', `/functions/v1/stores/${storeId}/products`, { token });
      });
      expect(page?.status).toBe(200);
      expect(page?.body.data.map((product: { name: string }) => product.name)).toEqual(['Mug']);
      expect(statements).toHaveLength(3);
      expect(statements[0]).toMatch(/^START TRANSACTION; SELECT \* FROM app_authorize_request\(/);
      expect(statements[1]).toMatch(/FROM products/);
      expect(statements[2]).toBe('COMMIT');
    },
  );

  it('a write opens its transaction with the lookup too, and binds it once', async () => {
    const { token, storeId } = await merchantWithStore(api);
    let created: HttpResult | undefined;
    const statements = await statementsOf(async () => {
      created = await api.request('POST', `/functions/v1/stores/${storeId}/products`, {
        token,
        body: { name: 'Cup', price: 9 },
      });
    });
    expect(created?.status).toBe(201);
    expect(statements[0]).toMatch(/^START TRANSACTION; SELECT \* FROM app_authorize_request\(/);
    expect(statements.at(-1)).toBe('COMMIT');
    expect(statements.filter((text) => /app_bind_request|app_authorize\(/.test(text))).toEqual([]);
    // The product is the caller's store's, written under its binding.
    const [row] = await db.query('SELECT store_id FROM products WHERE id = $1', [created?.body.product.id]);
    expect(row.store_id).toBe(storeId);
  });

  it(
    'requests refused by a later guard give their transaction back: ' +
      "404 for another tenant's store, 403 without the permission",
    async () => {
      const owner = await merchantWithStore(api);
      const stranger = await merchantWithStore(api);
      const email = uniqueEmail('member');
      const invite = await api.request('POST', `/functions/v1/stores/${owner.storeId}/members`, {
        token: owner.token,
        body: { email, permissions: ['orders'] },
      });
      const member = await signUp(api, { invite_token: invite.body.invite_token }, email);
      // Ten times the pool: a single transaction kept open would leave the next requests waiting for good.
      for (let round = 0; round < 10; round++) {
        const [foreign, forbidden] = await Promise.all([
          api.request('GET', `/functions/v1/stores/${owner.storeId}/products`, { token: stranger.token }),
          api.request('POST', `/functions/v1/stores/${owner.storeId}/products`, {
            token: member.access_token,
            body: { name: 'Not mine to add', price: 1 },
          }),
        ]);
        expect(foreign.status).toBe(404);
        expect(forbidden.status).toBe(403);
      }
      expect(
        (await api.request('GET', `/functions/v1/stores/${owner.storeId}/products`, { token: owner.token })).status,
      ).toBe(200);
      await eventually(async () => (await idleInTransaction()) === 0, 5_000);
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM products WHERE store_id = $1', [
        owner.storeId,
      ]);
      expect(count).toBe(0);
    },
  );

  it('a session that ended answers 401 and holds no transaction', async () => {
    const { token, storeId } = await merchantWithStore(api);
    expect((await api.request('POST', '/auth/v1/logout', { token })).status).toBe(204);
    for (let round = 0; round < 6; round++) {
      const refused = await api.request('GET', `/functions/v1/stores/${storeId}/products`, { token });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHENTICATED');
    }
    await eventually(async () => (await idleInTransaction()) === 0, 5_000);
    const other = await merchantWithStore(api);
    expect(
      (await api.request('GET', `/functions/v1/stores/${other.storeId}/products`, { token: other.token })).status,
    ).toBe(200);
  });

  describe('work after commit (RequestTransaction.afterCommit)', () => {
    /** Runs `work` in a request transaction opened as the JWT strategy opens one, for the store's owner. */
    async function inRequestTransaction(
      token: string,
      storeId: string,
      work: (manager: EntityManager) => Promise<void>,
    ) {
      await api.app.get(ClsService).run(async () => {
        const reference = { store: storeId, resource: null, record: null, onlyStore: false };
        const opened = await api.app.get(CallerLookup).open(sessionIdOf(token), reference);
        if (!opened) throw new Error('the session could not be opened');
        opened.transaction.enter();
        await opened.transaction.adopt(work);
      });
    }

    it('runs once the transaction has committed: another connection already sees its writes', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Before');
      const seen: string[] = [];
      await inRequestTransaction(token, storeId, async (manager) => {
        await manager.query(`UPDATE stores SET name = 'After' WHERE id = $1`, [storeId]);
        await RequestTransaction.afterCommit(async () => {
          seen.push((await db.query('SELECT name FROM stores WHERE id = $1', [storeId]))[0].name);
        });
        expect(seen).toEqual([]);
      });
      expect(seen).toEqual(['After']);
    });

    it('never runs when the transaction rolls back', async () => {
      const { token, storeId } = await merchantWithStore(api, 'Kept');
      let ran = false;
      const failed = inRequestTransaction(token, storeId, async (manager) => {
        await manager.query(`UPDATE stores SET name = 'Rolled back' WHERE id = $1`, [storeId]);
        await RequestTransaction.afterCommit(async () => {
          ran = true;
        });
        throw new Error('the handler failed');
      });
      await expect(failed).rejects.toThrow('the handler failed');
      expect(ran).toBe(false);
      expect((await db.query('SELECT name FROM stores WHERE id = $1', [storeId]))[0].name).toBe('Kept');
    });
  });
});
