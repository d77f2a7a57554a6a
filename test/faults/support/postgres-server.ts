import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../../bench/lib/child.js';

const run = promisify(execFile);

/**
 * A private PostgreSQL cluster (initdb in a temporary folder, 127.0.0.1 on a free port, no Unix
 * socket), which a test may stop and start again: never the machine's shared server. Its superuser is
 * `postgres`, and every login connects from 127.0.0.1 without a password (`initdb --auth=trust`), so
 * the app's start-up creates its roles and logins (storefront_app, storefront_service) as it does on a
 * development server. initdb and the server refuse to run as root: under root they run as the
 * `postgres` system user, which owns the folder.
 */
export class PostgresServer {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly owner?: { uid: number; gid: number },
  ) {}

  static async start(): Promise<PostgresServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-pg-'));
    const owner = process.getuid?.() === 0 ? await systemUser('postgres') : undefined;
    if (owner) fs.chownSync(dir, owner.uid, owner.gid);
    const server = new PostgresServer(await freePort(), dir, owner);
    await server.exec('initdb', [
      '-D',
      server.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    await server.resume();
    return server;
  }

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** The superuser's URL of a database on this server (`postgres` by default). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts (again) on the same port and waits until it takes connections. */
  async resume(): Promise<void> {
    const options =
      `-p ${this.port} -c listen_addresses=127.0.0.1 -c ` +
      `unix_socket_directories='' -c fsync=off -c max_connections=100`;
    await this.exec('pg_ctl', [
      'start',
      '-D',
      this.dataDir,
      '-w',
      '-t',
      '30',
      '-l',
      path.join(this.dir, 'server.log'),
      '-o',
      options,
    ]);
    const until = Date.now() + 10_000;
    for (;;) {
      const client = new pg.Client({ connectionString: this.url() });
      client.on('error', () => undefined);
      const ok = await client
        .connect()
        .then(() => client.query('SELECT 1'))
        .then(() => true)
        .catch(() => false)
        .finally(() => client.end().catch(() => undefined));
      if (ok) return;
      if (Date.now() > until)
        throw new Error(`PostgreSQL on port ${this.port} did not take connections within 10 s:\n${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Stops it (`fast`: open transactions roll back and every client is disconnected with 57P01; or
   * `immediate`: no goodbye at all) and waits until it is gone.
   */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.exec('pg_ctl', ['stop', '-D', this.dataDir, '-m', mode, '-w', '-t', '30']).catch((error: Error) => {
      // Already stopped: nothing to do.
      if (!/PID file .* does not exist|Is server running/.test(error.message)) throw error;
    });
  }

  /** Stops it and removes its folder. */
  async remove(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** The server's own log, last lines. */
  log(lines = 20): string {
    try {
      return fs.readFileSync(path.join(this.dir, 'server.log'), 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no server log)';
    }
  }

  private async exec(command: string, args: string[]): Promise<void> {
    try {
      await run(command, args, {
        ...(this.owner ?? {}),
        cwd: this.dir,
        env: { ...process.env, LC_ALL: 'C' },
        timeout: 60_000,
      });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      throw new Error(`${command} ${args[0]} failed: ${(stderr || stdout || (error as Error).message).trim()}`);
    }
  }
}

async function systemUser(name: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
