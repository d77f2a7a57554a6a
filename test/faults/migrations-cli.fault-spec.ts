import { exec } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startChild } from '../../bench/lib/child.js';
import { createServices, productionEnv, type BenchServices } from '../../bench/lib/services.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS: Record<string, string> = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;

/**
 * The migrations CLI (`npm run migration:show|run|revert`) on a fresh database of its own, run as the
 * npm scripts run it, less their `nest build` (`npm run test:faults` has just built the app).
 */
describe('migrations CLI (TypeORM with the app’s DataSource)', () => {
  let services: BenchServices;
  let env: Record<string, string>;
  let logDir: string;

  beforeAll(async () => {
    services = await createServices({ label: 'faults_migrations_cli' });
    env = { ...productionEnv(services, 'migrations-cli-public-key'), PUBLIC_BASE_URL: 'http://127.0.0.1:1' };
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-migrations-cli-'));
  });
  afterAll(async () => {
    await services?.cleanUp();
    if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  });

  /** `npm run <script>` without its build step: its exit code and output. */
  function cli(
    script: 'migration:show' | 'migration:run' | 'migration:revert',
  ): Promise<{ code: number; output: string }> {
    const command = SCRIPTS[script];
    expect(command.startsWith('nest build && ')).toBe(true);
    return new Promise((resolve) => {
      exec(
        command.slice('nest build && '.length),
        // No colours: under CI=true the CLI's colour library would colour its lines (as CI runs it).
        {
          cwd: ROOT,
          env: {
            ...process.env,
            ...env,
            FORCE_COLOR: '0',
            NO_COLOR: '1',
            PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
          },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
  }

  /** `[X] <id> <name>` / `[ ] <name>` lines of migration:show. */
  function listed(output: string): { applied: string[]; pending: string[] } {
    // eslint-disable-next-line no-control-regex -- colour codes, should a terminal setting bring them back
    const lines = output.split('\n').map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').trim());
    return {
      applied: lines.filter((line) => line.startsWith('[X] ')).map((line) => line.split(' ').at(-1)!),
      pending: lines.filter((line) => line.startsWith('[ ] ')).map((line) => line.slice(4)),
    };
  }

  const executed = async () =>
    (await services.db.query<{ name: string }>('SELECT name FROM migrations ORDER BY id')).rows.map((row) => row.name);

  /**
   * Every table, index, view, sequence and function of the schema, with its owner, every policy with what it says, and
   * every trigger.
   */
  const schema = async () =>
    (
      await services.db.query<{ object: string }>(
        `SELECT c.relkind::text || ' ' || c.relname || ' ' || pg_get_userbyid(c.relowner) AS object FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'storefront_private')
         UNION ALL
         SELECT 'f ' || p.oid::regprocedure || ' ' || pg_get_userbyid(p.proowner) FROM pg_proc p
           JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('public', 'storefront_private')
         UNION ALL
         SELECT 'p ' || tablename || ' ' || policyname || ' ' || coalesce(qual, '') || ' ' || coalesce(with_check, '')
           FROM pg_policies WHERE schemaname IN ('public', 'storefront_private')
         UNION ALL
         SELECT 't ' || pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE NOT t.tgisinternal
         ORDER BY 1`,
      )
    ).rows.map((row) => row.object);

  it(
    'show lists every migration pending, run applies them as the owner ' +
      'role, revert undoes the last one, and the app boots on the result',
    async () => {
      const fresh = await cli('migration:show');
      expect(fresh.code).toBe(0);
      const all = listed(fresh.output);
      expect(all.applied).toEqual([]);
      // One migration of tables per lib that has tables, core's first.
      expect(all.pending, fresh.output).toHaveLength(9);
      expect(all.pending[0]).toBe('CoreTables1763802800100');

      const run = await cli('migration:run');
      expect(run.code, run.output).toBe(0);
      // Applied in the order show listed them, each once.
      expect(await executed()).toEqual(all.pending);
      for (const name of all.pending) expect(run.output).toContain(`Migration ${name} has been executed successfully.`);
      // Then every lib's sql/ files: the policies, triggers and definer functions are there.
      expect(
        (await services.db.query('SELECT count(*)::int AS policies FROM pg_policies')).rows[0].policies,
      ).toBeGreaterThan(60);
      expect(
        (await services.db.query('SELECT count(*)::int AS applied FROM storefront_private.declared_sql')).rows[0]
          .applied,
      ).toBe(1);
      // What the start-up does around migrating: the objects belong to the owner role, the schema right
      // lent to the system role for the definer functions is taken back, and the lock is released.
      const afterRun = await schema();
      const owners = await services.db.query<{ owner: string }>(
        `SELECT DISTINCT pg_get_userbyid(owner) AS owner FROM (
         SELECT c.oid, c.relowner AS owner, 'pg_class'::regclass AS catalog, c.relnamespace AS namespace FROM pg_class c
         UNION ALL SELECT p.oid, p.proowner, 'pg_proc'::regclass, p.pronamespace FROM pg_proc p) o
        WHERE namespace IN (SELECT oid FROM pg_namespace WHERE nspname IN ('public', 'storefront_private'))
          -- An extension's objects (pg_trgm) belong to who installs extensions, at start-up too.
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = o.catalog AND d.objid = o.oid AND d.deptype = 'e')
        ORDER BY 1`,
      );
      expect(owners.rows.map((row) => row.owner)).toEqual(['storefront_owner', 'storefront_system']);
      expect(afterRun).toContain('r migrations storefront_owner');
      const rights = await services.db.query(
        `SELECT has_schema_privilege('storefront_system', 'public', 'CREATE') AS system_creates,
              (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS advisory_locks`,
      );
      expect(rights.rows[0]).toEqual({ system_creates: false, advisory_locks: 0 });

      const applied = listed((await cli('migration:show')).output);
      expect(applied).toEqual({ applied: all.pending, pending: [] });

      const revert = await cli('migration:revert');
      expect(revert.code, revert.output).toBe(0);
      const last = all.pending.at(-1)!;
      expect(revert.output).toContain(`Migration ${last} has been reverted successfully.`);
      expect(await executed()).toEqual(all.pending.slice(0, -1));
      expect(await schema()).not.toEqual(afterRun);
      expect(listed((await cli('migration:show')).output)).toEqual({
        applied: all.pending.slice(0, -1),
        pending: [last],
      });

      // Run again: only the reverted one, then the sql/ files (the reverted tables' policies and
      // triggers went with them), and the schema is as it was.
      const again = await cli('migration:run');
      expect(again.code, again.output).toBe(0);
      expect(again.output.match(/has been executed successfully/g)).toHaveLength(1);
      expect(await schema()).toEqual(afterRun);

      // The start-up finds nothing to migrate and serves.
      const port = await freePort();
      const api = await startChild({
        name: 'api',
        script: path.join(ROOT, 'dist/apps/api/src/main.js'),
        env: {
          ...env,
          APP_ROLE: 'api',
          PORT: String(port),
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          LOG_LEVEL: 'info',
        },
        logDir,
        port,
        readyPath: '/health/ready',
      });
      try {
        expect(await executed()).toEqual(all.pending);
        const signUp = await fetch(`http://127.0.0.1:${port}/auth/v1/signup`, {
          method: 'POST',
          headers: { apikey: 'migrations-cli-public-key', 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'cli@example.com', password: 'correct horse battery staple' }),
        });
        expect(signUp.status).toBe(200);
      } finally {
        await api.stop();
      }
    },
  );
});
