import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The secrets a development or test installation generates for itself instead of shipping any. */
export interface DevelopmentSecrets {
  JWT_SECRET: string;
  ENCRYPTION_KEY: string;
}

const ENCRYPTION_KEY_SHAPE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The installation's development secrets from `file`, generated (32 random bytes each) when the file
 * does not exist yet. Every process of the installation (API, worker, test files, restarts) reads the
 * same file, so tokens and sealed secrets stay valid across them. Throws an Error whose message
 * says what is wrong with the file.
 */
export function developmentSecrets(file: string): DevelopmentSecrets {
  const existing = read(file);
  if (existing) return existing;
  const fresh: DevelopmentSecrets = {
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  // Written whole under a name of this process's own, then linked into place: link() creates the name
  // exclusively, so of two processes starting together one wins and the other reads the winner's file,
  // which is never seen half-written.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(draft, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw describe(file, error);
  }
  try {
    fs.linkSync(draft, file);
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw describe(file, error);
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return read(file) ?? invalid(file);
}

function read(file: string): DevelopmentSecrets | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw describe(file, error);
  }
  let secrets: Partial<DevelopmentSecrets>;
  try {
    secrets = JSON.parse(text) as Partial<DevelopmentSecrets>;
  } catch {
    return invalid(file);
  }
  const { JWT_SECRET, ENCRYPTION_KEY } = secrets ?? {};
  if (typeof JWT_SECRET !== 'string' || JWT_SECRET.length < 32) return invalid(file);
  if (typeof ENCRYPTION_KEY !== 'string' || !ENCRYPTION_KEY_SHAPE.test(ENCRYPTION_KEY)) return invalid(file);
  return { JWT_SECRET, ENCRYPTION_KEY };
}

function invalid(file: string): never {
  throw new Error(`${file} does not hold a valid JWT_SECRET and ENCRYPTION_KEY; delete it to generate new ones`);
}

function describe(file: string, error: unknown): Error {
  return new Error(
    `${file} could not be read or created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
  );
}
