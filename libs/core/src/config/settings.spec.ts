import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IsOptional, IsString, MinLength } from 'class-validator';
import { databaseConfig } from '../database/database.config.js';
import { loggingConfig } from '../observability/logging.config.js';
import { outboxConfig } from '../outbox/outbox.config.js';
import { CORE_SETTINGS } from './core-settings.js';
import { httpConfig } from './http.config.js';
import { runtimeConfig } from './runtime.config.js';
import { loadSettings, type Settings } from './load-settings.js';
import { ConfigError, defineSettings, Setting, SettingsGroup, type SettingsNamespace } from './settings.js';

/** The published development secrets of earlier versions: no process may run on them again. */
const OLD_JWT_SECRET = 'development-only-jwt-secret-change-me-0123456789';
const OLD_ENCRYPTION_KEY = 'ZGV2ZWxvcG1lbnQtb25seS1lbmNyeXB0aW9uLWtleSE=';

/** A lib's settings as a spec declares them: a token secret, generated in development like auth's JWT_SECRET. */
class TokenSettings extends SettingsGroup {
  @Setting('A signing secret.', { requiredInProduction: true, developmentSecret: 'JWT_SECRET' })
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  JWT_SECRET?: string;
}
const tokenConfig = defineSettings('token', '@app/spec', TokenSettings);
const NAMESPACES = [...CORE_SETTINGS, tokenConfig];

let dir: string;
let secretsFile: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-config-'));
  secretsFile = path.join(dir, '.storefront', 'development-secrets.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const load = (env: Record<string, string>, file = secretsFile): Settings =>
  loadSettings(NAMESPACES, env, { secretsFile: file });

function problems(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const PRODUCTION_SECRETS = {
  JWT_SECRET: 'a-production-secret-of-at-least-32-characters',
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  PUBLIC_BASE_URL: 'https://api.example.com',
};

describe('loadSettings', () => {
  it('runs on defaults alone in development, each namespace its own class', () => {
    const settings = load({ NODE_ENV: 'development' });
    expect(settings.get(httpConfig).PORT).toBe(3000);
    expect(settings.get(httpConfig).baseUrl).toBe('http://localhost:3000');
    expect(settings.get(runtimeConfig).encryptionKey).toHaveLength(32);
    expect(settings.get(httpConfig).ALLOWED_REDIRECT_ORIGINS).toEqual([
      'http://localhost:3000',
      'http://localhost:5173',
    ]);
    // Every namespace learns NODE_ENV, for its defaults that differ in production.
    expect(NAMESPACES.map((namespace: SettingsNamespace<any>) => settings.get(namespace).nodeEnv)).toEqual(
      NAMESPACES.map(() => 'development'),
    );
  });

  it('converts numbers, booleans and lists', () => {
    const settings = load({
      NODE_ENV: 'test',
      PORT: '8080',
      OUTBOX_RELAY: 'false',
      CORS_ORIGINS: 'https://a.example, https://b.example',
    });
    expect(settings.get(httpConfig).PORT).toBe(8080);
    expect(settings.get(outboxConfig).OUTBOX_RELAY).toBe(false);
    expect(settings.get(httpConfig).corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('keeps dispatched outbox events 30 days by default, at least 30; 0 keeps them for ever; refuses the rest', () => {
    expect(load({ NODE_ENV: 'test' }).get(outboxConfig).OUTBOX_RETENTION_DAYS).toBe(30);
    expect(load({ NODE_ENV: 'test', OUTBOX_RETENTION_DAYS: '0' }).get(outboxConfig).OUTBOX_RETENTION_DAYS).toBe(0);
    expect(load({ NODE_ENV: 'test', OUTBOX_RETENTION_DAYS: '90' }).get(outboxConfig).OUTBOX_RETENTION_DAYS).toBe(90);
    for (const bad of ['-1', '1.5', 'week', '3651', '1', '7', '29']) {
      expect(problems({ NODE_ENV: 'test', OUTBOX_RETENTION_DAYS: bad })).toEqual([
        expect.stringMatching(/^OUTBOX_RETENTION_DAYS /),
      ]);
    }
  });

  it(
    'bounds the shutdown and the wait for a database ' + 'connection: 10 s and 5 s by default, refused out of range',
    () => {
      const defaults = load({ NODE_ENV: 'test' });
      expect(defaults.get(runtimeConfig).SHUTDOWN_TIMEOUT_MS).toBe(10_000);
      expect(defaults.get(databaseConfig).DATABASE_CONNECT_TIMEOUT_MS).toBe(5000);
      const set = load({ NODE_ENV: 'test', SHUTDOWN_TIMEOUT_MS: '30000', DATABASE_CONNECT_TIMEOUT_MS: '2000' });
      expect([set.get(runtimeConfig).SHUTDOWN_TIMEOUT_MS, set.get(databaseConfig).DATABASE_CONNECT_TIMEOUT_MS]).toEqual(
        [30_000, 2000],
      );
      const lines = problems({ NODE_ENV: 'test', SHUTDOWN_TIMEOUT_MS: '500', DATABASE_CONNECT_TIMEOUT_MS: 'soon' });
      expect(lines).toHaveLength(2);
      expect(
        lines.find((line) => line.startsWith('SHUTDOWN_TIMEOUT_MS ("500")') && line.includes('not be less than 1000')),
      ).toBeDefined();
      expect(lines.find((line) => line.startsWith('DATABASE_CONNECT_TIMEOUT_MS ("soon")'))).toBeDefined();
    },
  );

  it('trusts no proxy by default, and the hops TRUST_PROXY names: a count or addresses/CIDRs', () => {
    const trustProxy = (env: Record<string, string>) => load({ NODE_ENV: 'test', ...env }).get(httpConfig).trustProxy;
    expect(trustProxy({})).toBe(false);
    expect(trustProxy({ TRUST_PROXY: 'false' })).toBe(false);
    expect(trustProxy({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7, ::1, loopback' })).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      '::1',
      'loopback',
    ]);
    // A count trusts the socket's peer and the next count-1 X-Forwarded-For entries.
    const twoHops = trustProxy({ TRUST_PROXY: '2' }) as (address: string, hop: number) => boolean;
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
    expect(load({ NODE_ENV: 'test' }).get(httpConfig).corsOrigins).toEqual(['*']);
    expect(load(production).get(httpConfig).corsOrigins).toEqual([]);
    expect(load({ ...production, CORS_ORIGINS: 'https://shop.example' }).get(httpConfig).corsOrigins).toEqual([
      'https://shop.example',
    ]);
    expect(problems({ ...production, CORS_ORIGINS: '*' })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS \("\*"\): refused when NODE_ENV=production/),
    ]);
    expect(problems({ NODE_ENV: 'test', CORS_ORIGINS: 'https://shop.example/app' })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS .*must be origins/),
    ]);
  });

  it('reports one line per bad variable of any namespace, naming it and its value', () => {
    const lines = problems({
      NODE_ENV: 'test',
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      JWT_SECRET: 'short',
      APP_ROLE: 'boss',
    });
    expect(lines).toHaveLength(4);
    expect(lines.find((line) => line.startsWith('PORT ("eighty")'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('DATABASE_URL ("mysql://x"): must be a postgres://'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('JWT_SECRET') && line.includes('at least 32'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('APP_ROLE'))).toBeDefined();
    // An empty value counts as unset, as `NAME=` in a .env file: the default.
    expect(load({ NODE_ENV: 'test', PORT: '' }).get(httpConfig).PORT).toBe(3000);
  });

  it('requires the secrets in production, in one line naming all of them (alphabetically), across namespaces', () => {
    const message = 'ENCRYPTION_KEY, JWT_SECRET, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)';
    expect(problems({ NODE_ENV: 'production' })).toEqual([message]);
    expect(() => load({ NODE_ENV: 'production' })).toThrow(`Invalid configuration: ${message}`);
    expect(problems({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) })).toEqual([
      'ENCRYPTION_KEY, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)',
    ]);
  });

  it('applies the production rules when NODE_ENV is unset, and generates nothing', () => {
    expect(problems({})).toEqual([
      'ENCRYPTION_KEY, JWT_SECRET, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)',
    ]);
    expect(fs.existsSync(secretsFile)).toBe(false);
    const settings = load({ ...PRODUCTION_SECRETS });
    expect(settings.get(runtimeConfig).isProduction).toBe(true);
    expect(settings.get(tokenConfig).JWT_SECRET).toBe(PRODUCTION_SECRETS.JWT_SECRET);
    expect(settings.developmentSecretsFile).toBeUndefined();
  });

  it('generates the development secrets once, unguessable, and shares them with every later process', () => {
    const first = load({ NODE_ENV: 'development' });
    const jwtSecret = first.get(tokenConfig).JWT_SECRET!;
    const encryptionKey = first.get(runtimeConfig).ENCRYPTION_KEY!;
    expect(first.developmentSecretsFile).toBe(secretsFile);
    expect(jwtSecret).not.toBe(OLD_JWT_SECRET);
    expect(jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(encryptionKey).not.toBe(OLD_ENCRYPTION_KEY);
    expect(first.get(runtimeConfig).encryptionKey).toHaveLength(32);
    expect(fs.statSync(secretsFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(secretsFile, 'utf8'))).toEqual({
      JWT_SECRET: jwtSecret,
      ENCRYPTION_KEY: encryptionKey,
    });

    const second = load({ NODE_ENV: 'test' });
    expect(second.get(tokenConfig).JWT_SECRET).toBe(jwtSecret);
    expect(second.get(runtimeConfig).encryptionKey.equals(first.get(runtimeConfig).encryptionKey)).toBe(true);

    // Another installation draws its own.
    const elsewhere = load({ NODE_ENV: 'development' }, path.join(dir, 'other', 'secrets.json'));
    expect(elsewhere.get(tokenConfig).JWT_SECRET).not.toBe(jwtSecret);
  });

  it('leaves the file alone when the environment brings both secrets, and takes only the missing one from it', () => {
    const given = load({
      NODE_ENV: 'development',
      JWT_SECRET: 'j'.repeat(32),
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    });
    expect(given.developmentSecretsFile).toBeUndefined();
    expect(fs.existsSync(secretsFile)).toBe(false);

    const half = load({ NODE_ENV: 'development', JWT_SECRET: 'j'.repeat(32) });
    expect(half.get(tokenConfig).JWT_SECRET).toBe('j'.repeat(32));
    expect(half.get(runtimeConfig).ENCRYPTION_KEY).toBe(
      JSON.parse(fs.readFileSync(secretsFile, 'utf8')).ENCRYPTION_KEY,
    );
  });

  it('agrees with a process that created the file first, also when it did so a moment before this one', () => {
    fs.mkdirSync(path.dirname(secretsFile));
    const theirs = { JWT_SECRET: 's'.repeat(40), ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') };
    fs.writeFileSync(secretsFile, JSON.stringify(theirs), { mode: 0o600 });
    expect(load({ NODE_ENV: 'development' }).get(tokenConfig).JWT_SECRET).toBe(theirs.JWT_SECRET);

    // The race: the file appears between this process's look and its own create.
    fs.rmSync(secretsFile);
    const link = fs.linkSync;
    const racing = vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      fs.writeFileSync(secretsFile, JSON.stringify(theirs), { mode: 0o600 });
      link(from, to);
    });
    try {
      expect(load({ NODE_ENV: 'development' }).get(tokenConfig).JWT_SECRET).toBe(theirs.JWT_SECRET);
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
      `ENCRYPTION_KEY, JWT_SECRET: unset, and ${secretsFile} does not hold ` +
        `a valid JWT_SECRET and ENCRYPTION_KEY; delete it to generate new ones`,
    ]);
  });

  it('honours UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS under NODE_ENV=test only, and refuses it anywhere else', () => {
    const mayBypass = (env: Record<string, string>) => load(env).get(databaseConfig).requestLoginMayBypassRls;
    expect(mayBypass({ NODE_ENV: 'test' })).toBe(false);
    expect(mayBypass({ NODE_ENV: 'test', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' })).toBe(true);
    expect(mayBypass({ NODE_ENV: 'test', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'false' })).toBe(false);
    // NODE_ENV unset counts as production.
    const elsewhere: Record<string, string>[] = [
      { NODE_ENV: 'development' },
      { NODE_ENV: 'production', ...PRODUCTION_SECRETS },
      { ...PRODUCTION_SECRETS },
    ];
    for (const env of elsewhere) {
      const lines = problems({ ...env, UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS \(true\): refused when NODE_ENV=(development|production)/,
      );
    }
    // Settings changed after loading are still not honoured outside tests.
    const database = load({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }).get(databaseConfig);
    database.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS = true;
    expect(database.requestLoginMayBypassRls).toBe(false);
  });

  it('allows redirects to the configured origins only', () => {
    const http = load({ NODE_ENV: 'test', ALLOWED_REDIRECT_ORIGINS: 'https://shop.example' }).get(httpConfig);
    expect(http.allowsRedirectTo('https://shop.example/after?x=1')).toBe(true);
    expect(http.allowsRedirectTo('https://shop.example.evil.test/')).toBe(false);
    expect(http.allowsRedirectTo('http://shop.example/')).toBe(false);
    expect(http.allowsRedirectTo('not a url')).toBe(false);
  });

  it('logs pretty in development and JSON in production and test, unless LOG_FORMAT says otherwise', () => {
    const format = (env: Record<string, string>) => load(env).get(loggingConfig).logFormat;
    expect(format({ NODE_ENV: 'development' })).toBe('pretty');
    expect(format({ NODE_ENV: 'test' })).toBe('json');
    expect(format({ NODE_ENV: 'production', ...PRODUCTION_SECRETS })).toBe('json');
    expect(format({ NODE_ENV: 'development', LOG_FORMAT: 'json' })).toBe('json');
    expect(format({ NODE_ENV: 'production', ...PRODUCTION_SECRETS, LOG_FORMAT: 'pretty' })).toBe('pretty');
    expect(problems({ NODE_ENV: 'test', LOG_FORMAT: 'xml' })).toEqual([
      'LOG_FORMAT ("xml"): LOG_FORMAT must be one of the following values: json, pretty',
    ]);
  });

  it('traces only when OTEL_EXPORTER_OTLP_ENDPOINT names an http(s) collector', () => {
    expect(load({ NODE_ENV: 'test' }).get(loggingConfig).tracingEnabled).toBe(false);
    const traced = load({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).get(loggingConfig);
    expect(traced.tracingEnabled).toBe(true);
    expect(traced.OTEL_SERVICE_NAME).toBe('storefront-api');
    expect(problems({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT \("collector:4318"\): /),
    ]);
  });

  it('refuses two namespaces of one name, and a namespace the app did not load', () => {
    expect(() => loadSettings([httpConfig, httpConfig], { NODE_ENV: 'test' })).toThrow(
      'Two settings namespaces are called "http"',
    );
    expect(() => loadSettings([httpConfig], { NODE_ENV: 'test' }).get(databaseConfig)).toThrow(
      'The settings "database" were not loaded',
    );
  });
});

describe('a namespace', () => {
  it('is an @nestjs/config factory: KEY injects it, and called it reads process.env', () => {
    expect(httpConfig.KEY).toBe('CONFIGURATION(http)');
    const saved = process.env.PORT;
    process.env.PORT = '4321';
    try {
      expect(httpConfig().PORT).toBe(4321);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it('builds from an env-like record alone (tests), with the namespace’s own checks', () => {
    expect(httpConfig.from({ NODE_ENV: 'test', PUBLIC_BASE_URL: 'https://api.example/' }).baseUrl).toBe(
      'https://api.example',
    );
    expect(() => databaseConfig.from({ NODE_ENV: 'development', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' })).toThrow(
      ConfigError,
    );
  });

  it('describes each variable for the reference: default, requirement, owner', () => {
    expect(httpConfig.docs().find((doc) => doc.name === 'PUBLIC_BASE_URL')).toMatchObject({
      default: '`http://localhost:<PORT>` (development, test)',
      requiredInProduction: true,
      namespace: 'http',
      lib: '@app/core',
    });
    expect(runtimeConfig.docs().find((doc) => doc.name === 'SHUTDOWN_TIMEOUT_MS')).toMatchObject({
      default: '10000',
      requiredInProduction: false,
    });
    expect(httpConfig.docs().find((doc) => doc.name === 'ALLOWED_REDIRECT_ORIGINS')?.default).toBe(
      'http://localhost:3000,http://localhost:5173',
    );
    expect(httpConfig.docs().find((doc) => doc.name === 'METRICS_TOKEN')?.default).toBe('unset');
  });

  it('refuses a validated property that is not declared a @Setting', () => {
    class Undeclared extends SettingsGroup {
      @Setting('Declared.')
      @IsString()
      DECLARED = 'yes';

      @IsString()
      FORGOTTEN = 'no';
    }
    expect(() => defineSettings('undeclared', '@app/spec', Undeclared).from({})).toThrow(
      'Undeclared.FORGOTTEN is validated but has no @Setting',
    );
  });
});
