import { ClsServiceManager } from 'nestjs-cls';
import { DataSource, QueryFailedError, type QueryRunner } from 'typeorm';
import { RequestTransaction } from '../libs/core/src/tenancy/request-transaction.js';

/**
 * RequestTransaction's commit (libs/core/src/tenancy/request-transaction.ts) sends COMMIT on the runner's pg
 * connection itself, past TypeORM's `commitTransaction`: on the real PostgreSQL, that the work is committed,
 * that TypeORM's runner knows the transaction ended, and that a COMMIT the database refuses (a deferred
 * constraint) or turns into a rollback (a statement had failed) is a QueryFailedError after which nothing
 * is kept, no work after the commit runs, and the connection serves again.
 */
describe('the request transaction commits on its own connection', () => {
  // The test database as its owner, one connection: the probe tables are temporary ones of that connection.
  const db = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, poolSize: 1 });

  beforeAll(async () => {
    await db.initialize();
    await db.query('CREATE TEMP TABLE commit_probe_parent (id int PRIMARY KEY)');
    await db.query(
      'CREATE TEMP TABLE commit_probe_child (parent int REFERENCES commit_probe_parent DEFERRABLE INITIALLY DEFERRED)',
    );
  });
  afterAll(() => db.destroy());

  /** A transaction opened as the JWT strategy opens one: START TRANSACTION sent on the connection itself. */
  async function opened(): Promise<{ runner: QueryRunner; transaction: RequestTransaction }> {
    const runner = db.createQueryRunner();
    const connection = (await runner.connect()) as { query(sql: string): Promise<unknown> };
    await connection.query('START TRANSACTION');
    return { runner, transaction: new RequestTransaction(runner) };
  }

  const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table}`))[0].n);

  /** `adopt` in a request context, as the handlers run, with work registered to run after the commit. */
  async function adoptInContext(transaction: RequestTransaction, work: Parameters<RequestTransaction['adopt']>[0]) {
    const ran: string[] = [];
    const outcome = await ClsServiceManager.getClsService().run(async () => {
      transaction.enter();
      return transaction
        .adopt(async (manager) => {
          await RequestTransaction.afterCommit(async () => void ran.push('after commit'));
          return work(manager);
        })
        .catch((error: unknown) => error);
    });
    return { outcome, ran };
  }

  it("commits the work, ends the runner's transaction and gives the connection back", async () => {
    const { runner, transaction } = await opened();
    const answer = await transaction.adopt(async (manager) => {
      await manager.query('INSERT INTO commit_probe_parent (id) VALUES (1), (2)');
      return 'done';
    });
    expect(answer).toBe('done');
    expect(runner.isTransactionActive).toBe(false);
    expect((runner as unknown as { transactionDepth: number }).transactionDepth).toBe(0);
    expect(runner.isReleased).toBe(true);
    // Seen from the pool's connection (the one the runner gave back), outside any transaction.
    expect(await count('commit_probe_parent')).toBe(2);
  });

  it('a refused COMMIT is a QueryFailedError, keeps nothing, and the connection serves again', async () => {
    const { runner, transaction } = await opened();
    const failure = await transaction
      .adopt(async (manager) => {
        // Checked at COMMIT: no parent 99.
        await manager.query('INSERT INTO commit_probe_child (parent) VALUES (99)');
        await manager.query('INSERT INTO commit_probe_parent (id) VALUES (3)');
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('23503');
    expect((failure as QueryFailedError).query).toBe('COMMIT');
    expect(runner.isReleased).toBe(true);
    expect(await count('commit_probe_child')).toBe(0);
    expect(await count('commit_probe_parent')).toBe(2);
    // The pool's one connection is usable, and in no transaction.
    expect((await db.query('SELECT txid_current_if_assigned() AS tx'))[0].tx).toBeNull();
  });

  it('runs the work registered for after the commit once the commit is done', async () => {
    const { transaction } = await opened();
    const { outcome, ran } = await adoptInContext(transaction, async (manager) => {
      await manager.query('INSERT INTO commit_probe_parent (id) VALUES (5)');
      return 'kept';
    });
    expect(outcome).toBe('kept');
    expect(ran).toEqual(['after commit']);
    expect(await count('commit_probe_parent')).toBe(3);
  });

  it('a handler that swallows a failed statement does not pass for committed: 25P02, nothing kept', async () => {
    const { runner, transaction } = await opened();
    const { outcome, ran } = await adoptInContext(transaction, async (manager) => {
      await manager.query('INSERT INTO commit_probe_parent (id) VALUES (6)');
      // A duplicate key: the transaction is aborted, and PostgreSQL would answer COMMIT with ROLLBACK.
      await manager.query('INSERT INTO commit_probe_parent (id) VALUES (6)').catch(() => undefined);
      return 'looks fine';
    });
    expect(outcome).toBeInstanceOf(QueryFailedError);
    expect((outcome as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('25P02');
    expect(ran).toEqual([]);
    expect(runner.isReleased).toBe(true);
    expect(await count('commit_probe_parent')).toBe(3);
    expect((await db.query('SELECT txid_current_if_assigned() AS tx'))[0].tx).toBeNull();
  });

  it('a handler that throws is rolled back: its work is gone, its error is the answer', async () => {
    const { runner, transaction } = await opened();
    const failure = await transaction
      .adopt(async (manager) => {
        await manager.query('INSERT INTO commit_probe_parent (id) VALUES (4)');
        throw new Error('refused by the handler');
      })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe('refused by the handler');
    expect(runner.isReleased).toBe(true);
    expect(await count('commit_probe_parent')).toBe(3);
  });
});
