import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, DEVELOPMENT_DEFAULTS, loadConfig } from './app-config.js';

/** The published development secrets of earlier versions: no process may run on them again. */
const OLD_JWT_SECRET = 'development-only-jwt-secret-change-me-0123456789';
const OLD_ENCRYPTION_KEY = 'ZGV2ZWxvcG1lbnQtb25seS1lbmNyeXB0aW9uLWtleSE=';

let dir: string;
let secretsFile: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-config-'));
  secretsFile = path.join(dir, '.storefront', 'development-secrets.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, { secretsFile });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const PRODUCTION_SECRETS = {
  JWT_SECRET: 'a-production-secret-of-at-least-32-characters',
  PUBLIC_API_KEY: 'production-public-key',
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  PUBLIC_BASE_URL: 'https://api.example.com',
};

describe('loadConfig', () => {
  it('runs on defaults alone in development', () => {
    const config = loadConfig({ NODE_ENV: 'development' }, { secretsFile });
    expect(config.PORT).toBe(3000);
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.publicApiKey).toBe(DEVELOPMENT_DEFAULTS.PUBLIC_API_KEY);
    expect(config.encryptionKey).toHaveLength(32);
    expect(config.ALLOWED_REDIRECT_ORIGINS).toEqual(['http://localhost:3000', 'http://localhost:5173']);
  });

  it('retries webhook deliveries at once, then after 1, 5, 30 and 60 minutes, with 10 s to answer', () => {
    const config = loadConfig({ NODE_ENV: 'development' }, { secretsFile });
    expect(config.WEBHOOK_RETRY_DELAYS_MS).toEqual([0, 60_000, 5 * 60_000, 30 * 60_000, 60 * 60_000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_DELAYS_MS: '0, 150,150' }, { secretsFile }).WEBHOOK_RETRY_DELAYS_MS).toEqual([
      0, 150, 150,
    ]);
  });

  it('converts numbers, booleans and lists', () => {
    const config = loadConfig(
      { NODE_ENV: 'test', PORT: '8080', OUTBOX_RELAY: 'false', CORS_ORIGINS: 'https://a.example, https://b.example' },
      { secretsFile },
    );
    expect(config.PORT).toBe(8080);
    expect(config.OUTBOX_RELAY).toBe(false);
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('keeps dispatched outbox events 7 days and finished deliveries 30 by default; 0 keeps them for ever; refuses the rest', () => {
    const defaults = loadConfig({ NODE_ENV: 'test' }, { secretsFile });
    expect([defaults.OUTBOX_RETENTION_DAYS, defaults.DELIVERY_RETENTION_DAYS]).toEqual([7, 30]);
    const off = loadConfig({ NODE_ENV: 'test', OUTBOX_RETENTION_DAYS: '0', DELIVERY_RETENTION_DAYS: '0' }, { secretsFile });
    expect([off.OUTBOX_RETENTION_DAYS, off.DELIVERY_RETENTION_DAYS]).toEqual([0, 0]);
    for (const bad of ['-1', '1.5', 'week', '3651']) {
      const lines = problems({ NODE_ENV: 'test', OUTBOX_RETENTION_DAYS: bad, DELIVERY_RETENTION_DAYS: bad });
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^OUTBOX_RETENTION_DAYS /);
      expect(lines[1]).toMatch(/^DELIVERY_RETENTION_DAYS /);
    }
  });

  it('bounds the shutdown and the wait for a database connection: 10 s and 5 s by default, refused out of range', () => {
    const defaults = loadConfig({ NODE_ENV: 'test' }, { secretsFile });
    expect(defaults.SHUTDOWN_TIMEOUT_MS).toBe(10_000);
    expect(defaults.DATABASE_CONNECT_TIMEOUT_MS).toBe(5000);
    const set = loadConfig({ NODE_ENV: 'test', SHUTDOWN_TIMEOUT_MS: '30000', DATABASE_CONNECT_TIMEOUT_MS: '2000' }, { secretsFile });
    expect([set.SHUTDOWN_TIMEOUT_MS, set.DATABASE_CONNECT_TIMEOUT_MS]).toEqual([30_000, 2000]);
    const lines = problems({ NODE_ENV: 'test', SHUTDOWN_TIMEOUT_MS: '500', DATABASE_CONNECT_TIMEOUT_MS: 'soon' });
    expect(lines).toHaveLength(2);
    expect(lines.find((line) => line.startsWith('SHUTDOWN_TIMEOUT_MS ("500")') && line.includes('not be less than 1000'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('DATABASE_CONNECT_TIMEOUT_MS ("soon")'))).toBeDefined();
  });

  it('trusts no proxy by default, and the hops TRUST_PROXY names: a count or addresses/CIDRs', () => {
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'false' }, { secretsFile }).trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '10.0.0.0/8, 192.0.2.7, ::1, loopback' }, { secretsFile }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      '::1',
      'loopback',
    ]);
    // A count trusts the socket's peer and the next count-1 X-Forwarded-For entries.
    const twoHops = loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '2' }, { secretsFile }).trustProxy as (
      address: string,
      hop: number,
    ) => boolean;
    expect([0, 1, 2].map((hop) => twoHops('192.0.2.7', hop))).toEqual([true, true, false]);
  });

  it('refuses TRUST_PROXY=true, and anything that does not name the hops, with one line', () => {
    for (const value of ['true', '1.2.3', '10.0.0.0/99', '10.0.0.0/8/8', '0', 'yes', ',']) {
      const lines = problems({ NODE_ENV: 'test', TRUST_PROXY: value });
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`TRUST_PROXY (${JSON.stringify(value)}): name the trusted hops`)).toBe(true);
    }
  });

  it('allows any CORS origin by default outside production, none in production, and refuses * there', () => {
    const production = { NODE_ENV: 'production', ...PRODUCTION_SECRETS };
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).corsOrigins).toEqual(['*']);
    expect(loadConfig(production, { secretsFile }).corsOrigins).toEqual([]);
    expect(loadConfig({ ...production, CORS_ORIGINS: 'https://shop.example' }, { secretsFile }).corsOrigins).toEqual([
      'https://shop.example',
    ]);
    expect(problems({ ...production, CORS_ORIGINS: '*' })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS \("\*"\): refused when NODE_ENV=production/),
    ]);
    expect(problems({ NODE_ENV: 'test', CORS_ORIGINS: 'https://shop.example/app' })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS .*must be origins/),
    ]);
  });

  it('reports one line per bad variable, naming it and its value', () => {
    const lines = problems({ NODE_ENV: 'test', PORT: 'eighty', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short', APP_ROLE: 'boss' });
    expect(lines).toHaveLength(4);
    expect(lines.find((line) => line.startsWith('PORT ("eighty")'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('DATABASE_URL ("mysql://x"): must be a postgres://'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('JWT_SECRET') && line.includes('at least 32'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('APP_ROLE'))).toBeDefined();
  });

  it('reads the fair-delivery settings, with defaults, and refuses values out of range', () => {
    const defaults = loadConfig({ NODE_ENV: 'test' }, { secretsFile });
    expect([defaults.WEBHOOK_ENDPOINT_CONCURRENCY, defaults.WEBHOOK_CIRCUIT_FAILURES, defaults.WEBHOOK_CIRCUIT_COOLDOWN_MS]).toEqual([
      2, 5, 60_000,
    ]);
    expect(defaults.WEBHOOK_WORKER_CONCURRENCY).toBe(8);
    const set = loadConfig(
      { NODE_ENV: 'test', WEBHOOK_ENDPOINT_CONCURRENCY: '4', WEBHOOK_CIRCUIT_FAILURES: '3', WEBHOOK_CIRCUIT_COOLDOWN_MS: '1500' },
      { secretsFile },
    );
    expect([set.WEBHOOK_ENDPOINT_CONCURRENCY, set.WEBHOOK_CIRCUIT_FAILURES, set.WEBHOOK_CIRCUIT_COOLDOWN_MS]).toEqual([4, 3, 1500]);
    const lines = problems({
      NODE_ENV: 'test',
      WEBHOOK_ENDPOINT_CONCURRENCY: '0',
      WEBHOOK_CIRCUIT_FAILURES: 'many',
      WEBHOOK_CIRCUIT_COOLDOWN_MS: '50',
      WEBHOOK_WORKER_CONCURRENCY: '1000',
    });
    expect(lines.map((line) => line.split(' ')[0]).sort()).toEqual([
      'WEBHOOK_CIRCUIT_COOLDOWN_MS',
      'WEBHOOK_CIRCUIT_FAILURES',
      'WEBHOOK_ENDPOINT_CONCURRENCY',
      'WEBHOOK_WORKER_CONCURRENCY',
    ]);
  });

  it('requires the secrets in production, in one line naming all of them', () => {
    const message = 'JWT_SECRET, ENCRYPTION_KEY, PUBLIC_API_KEY, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)';
    expect(problems({ NODE_ENV: 'production' })).toEqual([message]);
    expect(() => loadConfig({ NODE_ENV: 'production' }, { secretsFile })).toThrow(`Invalid configuration: ${message}`);
    expect(problems({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), PUBLIC_API_KEY: 'p'.repeat(16) })).toEqual([
      'ENCRYPTION_KEY, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)',
    ]);
  });

  it('applies the production rules when NODE_ENV is unset, and generates nothing', () => {
    expect(problems({})).toEqual([
      'JWT_SECRET, ENCRYPTION_KEY, PUBLIC_API_KEY, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)',
    ]);
    expect(fs.existsSync(secretsFile)).toBe(false);
    const config = loadConfig(
      {
        JWT_SECRET: 'j'.repeat(32),
        ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        PUBLIC_API_KEY: 'p'.repeat(16),
        PUBLIC_BASE_URL: 'https://api.example',
      },
      { secretsFile },
    );
    expect(config.isProduction).toBe(true);
    expect(config.jwtSecret).toBe('j'.repeat(32));
    expect(config.developmentSecretsFile).toBeUndefined();
  });

  it('generates the development secrets once, unguessable, and shares them with every later process', () => {
    const first = loadConfig({ NODE_ENV: 'development' }, { secretsFile });
    expect(first.developmentSecretsFile).toBe(secretsFile);
    expect(first.jwtSecret).not.toBe(OLD_JWT_SECRET);
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.ENCRYPTION_KEY).not.toBe(OLD_ENCRYPTION_KEY);
    expect(first.encryptionKey).toHaveLength(32);
    expect(fs.statSync(secretsFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(secretsFile, 'utf8'))).toEqual({ JWT_SECRET: first.jwtSecret, ENCRYPTION_KEY: first.ENCRYPTION_KEY });

    const second = loadConfig({ NODE_ENV: 'test' }, { secretsFile });
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);

    // Another installation draws its own.
    const elsewhere = loadConfig({ NODE_ENV: 'development' }, { secretsFile: path.join(dir, 'other', 'secrets.json') });
    expect(elsewhere.jwtSecret).not.toBe(first.jwtSecret);
  });

  it('leaves the file alone when the environment brings both secrets, and takes only the missing one from it', () => {
    const given = loadConfig(
      { NODE_ENV: 'development', JWT_SECRET: 'j'.repeat(32), ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') },
      { secretsFile },
    );
    expect(given.developmentSecretsFile).toBeUndefined();
    expect(fs.existsSync(secretsFile)).toBe(false);

    const half = loadConfig({ NODE_ENV: 'development', JWT_SECRET: 'j'.repeat(32) }, { secretsFile });
    expect(half.jwtSecret).toBe('j'.repeat(32));
    expect(half.ENCRYPTION_KEY).toBe(JSON.parse(fs.readFileSync(secretsFile, 'utf8')).ENCRYPTION_KEY);
  });

  it('agrees with a process that created the file first, also when it did so a moment before this one', () => {
    fs.mkdirSync(path.dirname(secretsFile));
    const theirs = { JWT_SECRET: 's'.repeat(40), ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') };
    fs.writeFileSync(secretsFile, JSON.stringify(theirs), { mode: 0o600 });
    expect(loadConfig({ NODE_ENV: 'development' }, { secretsFile }).jwtSecret).toBe(theirs.JWT_SECRET);

    // The race: the file appears between this process's look and its own create.
    fs.rmSync(secretsFile);
    const link = fs.linkSync;
    const racing = vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      fs.writeFileSync(secretsFile, JSON.stringify(theirs), { mode: 0o600 });
      link(from, to);
    });
    try {
      expect(loadConfig({ NODE_ENV: 'development' }, { secretsFile }).jwtSecret).toBe(theirs.JWT_SECRET);
      expect(racing).toHaveBeenCalledOnce();
    } finally {
      racing.mockRestore();
    }
    expect(fs.readdirSync(path.dirname(secretsFile))).toEqual(['development-secrets.json']);
  });

  it('refuses a damaged secrets file with one line saying what to do', () => {
    fs.mkdirSync(path.dirname(secretsFile));
    fs.writeFileSync(secretsFile, JSON.stringify({ JWT_SECRET: 'short' }));
    expect(problems({ NODE_ENV: 'development' })).toEqual([
      `JWT_SECRET, ENCRYPTION_KEY: unset, and ${secretsFile} does not hold a valid JWT_SECRET and ENCRYPTION_KEY; delete it to generate new ones`,
    ]);
  });

  it('honours UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS under NODE_ENV=test only, and refuses it anywhere else', () => {
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).requestLoginMayBypassRls).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' }, { secretsFile }).requestLoginMayBypassRls).toBe(
      true,
    );
    expect(loadConfig({ NODE_ENV: 'test', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'false' }, { secretsFile }).requestLoginMayBypassRls).toBe(
      false,
    );
    // NODE_ENV unset counts as production.
    const elsewhere: Record<string, string>[] = [
      { NODE_ENV: 'development' },
      { NODE_ENV: 'production', ...PRODUCTION_SECRETS },
      { ...PRODUCTION_SECRETS },
    ];
    for (const env of elsewhere) {
      const lines = problems({ ...env, UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS \(true\): refused when NODE_ENV=(development|production)/);
    }
    // A config object changed after loading is still not honoured outside tests.
    const config = loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }, { secretsFile });
    config.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS = true;
    expect(config.requestLoginMayBypassRls).toBe(false);
  });

  it('wants ADMIN_EMAIL and ADMIN_PASSWORD together', () => {
    expect(problems({ NODE_ENV: 'test', ADMIN_EMAIL: 'root@example.com' })).toEqual([
      expect.stringContaining('ADMIN_EMAIL / ADMIN_PASSWORD'),
    ]);
  });

  it('allows redirects to the configured origins only', () => {
    const config = loadConfig({ NODE_ENV: 'test', ALLOWED_REDIRECT_ORIGINS: 'https://shop.example' }, { secretsFile });
    expect(config.allowsRedirectTo('https://shop.example/after?x=1')).toBe(true);
    expect(config.allowsRedirectTo('https://shop.example.evil.test/')).toBe(false);
    expect(config.allowsRedirectTo('http://shop.example/')).toBe(false);
    expect(config.allowsRedirectTo('not a url')).toBe(false);
  });

  it('logs pretty in development and JSON in production and test, unless LOG_FORMAT says otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'development' }, { secretsFile }).logFormat).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }, { secretsFile }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'development', LOG_FORMAT: 'json' }, { secretsFile }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS, LOG_FORMAT: 'pretty' }, { secretsFile }).logFormat).toBe('pretty');
    expect(problems({ NODE_ENV: 'test', LOG_FORMAT: 'xml' })).toEqual([
      'LOG_FORMAT ("xml"): LOG_FORMAT must be one of the following values: json, pretty',
    ]);
  });

  it('traces only when OTEL_EXPORTER_OTLP_ENDPOINT names an http(s) collector', () => {
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).tracingEnabled).toBe(false);
    const traced = loadConfig({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, { secretsFile });
    expect(traced.tracingEnabled).toBe(true);
    expect(traced.OTEL_SERVICE_NAME).toBe('storefront-api');
    expect(problems({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT \("collector:4318"\): /),
    ]);
  });

  it('confirms e-mail addresses in production and not in development unless told, and sends links back to AUTH_SITE_URL', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }, { secretsFile }).requireEmailConfirmation).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development' }, { secretsFile }).requireEmailConfirmation).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development', AUTH_CONFIRM_EMAIL: 'true' }, { secretsFile }).requireEmailConfirmation).toBe(true);
    expect(
      loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS, AUTH_CONFIRM_EMAIL: 'false' }, { secretsFile }).requireEmailConfirmation,
    ).toBe(false);
    const config = loadConfig(
      { NODE_ENV: 'test', ALLOWED_REDIRECT_ORIGINS: 'https://shop.example', AUTH_SITE_URL: 'https://shop.example/account' },
      { secretsFile },
    );
    expect(config.redirectTarget('https://shop.example/reset')).toBe('https://shop.example/reset');
    expect(config.redirectTarget('https://evil.example/')).toBe('https://shop.example/account');
    expect(config.redirectTarget(['https://shop.example/'])).toBe('https://shop.example/account');
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).siteUrl).toBe('http://localhost:3000');
  });

  it('reads the account and mail settings: durations, SMTP URLs, the sender', () => {
    const config = loadConfig(
      {
        NODE_ENV: 'test',
        AUTH_OTP_TTL: '30m',
        AUTH_RECENT_SIGN_IN: '15m',
        MAIL_RETRY_DELAYS_MS: '100, 200',
        SMTP_URL: 'smtps://u:p@mail.example:465',
      },
      { secretsFile },
    );
    expect([config.AUTH_OTP_TTL, config.AUTH_RECENT_SIGN_IN, config.MAIL_RETRY_DELAYS_MS]).toEqual([1800, 900, [100, 200]]);
    expect(loadConfig({ NODE_ENV: 'test' }, { secretsFile }).AUTH_OTP_TTL).toBe(3600);
    expect(problems({ NODE_ENV: 'test', SMTP_URL: 'http://mail.example' })).toEqual([expect.stringContaining('SMTP_URL')]);
    expect(problems({ NODE_ENV: 'test', AUTH_OTP_TTL: '10s' })).toEqual([expect.stringContaining('AUTH_OTP_TTL')]);
    expect(problems({ NODE_ENV: 'test', MAIL_FROM: 'not an address' })).toEqual([expect.stringContaining('MAIL_FROM')]);
    expect(problems({ NODE_ENV: 'test', MAIL_FROM: 'Shop <shop@example.com>' })).toEqual([]);
  });
});
