import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEVELOPMENT_SECRETS_FILE } from '@app/core';
import { signUp, startApp, uniqueEmail } from './support/app.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');

/**
 * Working directories of the starts, each new, with no `.env` unless a test writes one. They hold the
 * checkout's generated secrets (when the run has made them), so a development start shares the run's keys.
 */
const workDirs: string[] = [];
const newWorkDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-start-'));
  workDirs.push(dir);
  const secrets = path.join(ROOT, DEVELOPMENT_SECRETS_FILE);
  if (fs.existsSync(secrets)) {
    fs.mkdirSync(path.join(dir, path.dirname(DEVELOPMENT_SECRETS_FILE)), { recursive: true });
    fs.copyFileSync(secrets, path.join(dir, DEVELOPMENT_SECRETS_FILE));
  }
  return dir;
};
afterAll(() => workDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** What `node dist/apps/api/src/main.js` printed before it exited (or was killed once `until` matched its output). */
async function runMain(
  env: Record<string, string>,
  until?: RegExp,
  cwd = newWorkDir(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Nothing of the test's own environment (NODE_ENV=test, the run's database) unless given, and no
  // `.env` but the test's own: the server reads the one of its working directory, here a new one.
  const child = spawn(process.execPath, [MAIN], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    // SIGKILL: what is asserted is the start, not a shutdown racing it.
    if (until?.test(stdout)) child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The run's PostgreSQL and Redis, for a process started from the build. */
const services = () => ({
  DATABASE_URL: process.env.DATABASE_URL!,
  REDIS_URL: process.env.REDIS_URL!,
  REDIS_PREFIX: process.env.REDIS_PREFIX!,
  HOST: '127.0.0.1',
  PORT: '0',
  OUTBOX_RELAY: 'false',
});

describe('start-up of the built server (node dist/apps/api/src/main.js)', () => {
  // The build under test is this checkout's, not whatever dist/ held before.
  beforeAll(async () => {
    await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/nest'), ['build'], { cwd: ROOT });
  }, 120_000);

  it('without NODE_ENV and secrets: exit code 1 and one line naming every missing secret', async () => {
    const result = await runMain({});
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Invalid configuration: ENCRYPTION_KEY, JWT_SECRET, PUBLIC_API_KEY, ' +
        'PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)\n',
    );
    expect(result.stdout).toBe('');
  });

  it(
    "a social platform's bad setting (declared in the " + "platform's folder): exit code 1 and one line per problem",
    async () => {
      const result = await runMain({
        ...services(),
        NODE_ENV: 'test',
        X_API_URL: 'not a url',
        META_GRAPH_VERSION: '21',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'Invalid configuration:\n  META_GRAPH_VERSION ("21"): must look like ' +
          'v21.0\n  X_API_URL ("not a url"): X_API_URL must be a URL address\n',
      );
      expect(result.stdout).toBe('');
    },
  );

  it(
    "bad settings of several libs (each lib's own class): " + "exit code 1 and one line each, every lib's at once",
    async () => {
      const result = await runMain({
        ...services(),
        NODE_ENV: 'test',
        PORT: 'eighty',
        MAIL_FROM: 'nobody',
        AI_HOURLY_LIMITS: 'generate-poem:3',
      });
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n')).toEqual([
        'Invalid configuration:',
        expect.stringMatching(/^ {2}PORT \("eighty"\): /),
        '  MAIL_FROM ("nobody"): must be an address or "Name <address>"',
        expect.stringMatching(/^ {2}AI_HOURLY_LIMITS \("generate-poem:3"\): unknown function "generate-poem"/),
        '',
      ]);
      expect(result.stdout).toBe('');
    },
  );

  it('reads .env from its working directory, the real environment winning over it', async () => {
    const cwd = newWorkDir();
    // Two bad values in the file; the environment gives META_GRAPH_VERSION too, and its value is the one refused.
    fs.writeFileSync(path.join(cwd, '.env'), '# a comment\nX_API_URL="not a url from .env"\nMETA_GRAPH_VERSION=v1\n');
    const result = await runMain({ ...services(), NODE_ENV: 'test', META_GRAPH_VERSION: '21' }, undefined, cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Invalid configuration:\n  META_GRAPH_VERSION ("21"): must look like v21.0\n ' +
        ' X_API_URL ("not a url from .env"): X_API_URL must be a URL address\n',
    );
    expect(result.stdout).toBe('');
  });

  it('an ADMIN_EMAIL a merchant holds: exit code 1 and the one line, no stack trace', async () => {
    const api = await startApp();
    const email = uniqueEmail('merchant-not-admin');
    await signUp(api, {}, email).finally(() => api.close());

    // `error` shows whatever Nest or the app would log about a failure; nothing else is logged at it.
    const result = await runMain({
      ...services(),
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      ADMIN_EMAIL: email,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `ADMIN_EMAIL ${email} belongs to an existing merchant account; choose another e-mail or remove that account\n`,
    );
    expect(result.stdout).toBe('');
  });

  it('in development: one warning naming the generated secrets file, in pino-pretty’s readable lines', async () => {
    const result = await runMain(
      { ...services(), NODE_ENV: 'development', LOG_LEVEL: 'warn' },
      /Storefront|generated secrets/,
    );
    const lines = result.stdout.split('\n').filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\] WARN: development process: ` +
            `generated secrets in ${DEVELOPMENT_SECRETS_FILE.replaceAll('.', '\\.')}; ` +
            `set NODE_ENV=production and real secrets for deployment$`,
        ),
      ),
    ]);
    expect(result.stderr).toBe('');
  });

  it('in development with LOG_FORMAT=json: the same warning as one JSON object', async () => {
    const result = await runMain(
      { ...services(), NODE_ENV: 'development', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
      /Storefront|generated secrets/,
    );
    const warnings = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        msg:
          `development process: generated secrets in ${DEVELOPMENT_SECRETS_FILE}; ` +
          `set NODE_ENV=production and real secrets for deployment`,
      }),
    ]);
    expect(result.stderr).toBe('');
  });
});
