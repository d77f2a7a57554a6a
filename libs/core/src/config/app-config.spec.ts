import { ConfigError, DEVELOPMENT_DEFAULTS, loadConfig } from './app-config.js';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
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
  it('runs on defaults alone outside production', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.publicApiKey).toBe(DEVELOPMENT_DEFAULTS.PUBLIC_API_KEY);
    expect(config.encryptionKey).toHaveLength(32);
    expect(config.ALLOWED_REDIRECT_ORIGINS).toEqual(['http://localhost:3000', 'http://localhost:5173']);
  });

  it('converts numbers, booleans and lists', () => {
    const config = loadConfig({ PORT: '8080', OUTBOX_RELAY: 'false', CORS_ORIGINS: 'https://a.example, https://b.example' });
    expect(config.PORT).toBe(8080);
    expect(config.OUTBOX_RELAY).toBe(false);
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('trusts no proxy by default, and the hops TRUST_PROXY names: a count or addresses/CIDRs', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7, ::1, loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      '::1',
      'loopback',
    ]);
    // A count trusts the socket's peer and the next count-1 X-Forwarded-For entries.
    const twoHops = loadConfig({ TRUST_PROXY: '2' }).trustProxy as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => twoHops('192.0.2.7', hop))).toEqual([true, true, false]);
  });

  it('refuses TRUST_PROXY=true, and anything that does not name the hops, with one line', () => {
    for (const value of ['true', '1.2.3', '10.0.0.0/99', '10.0.0.0/8/8', '0', 'yes', ',']) {
      const lines = problems({ TRUST_PROXY: value });
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`TRUST_PROXY (${JSON.stringify(value)}): name the trusted hops`)).toBe(true);
    }
  });

  it('allows any CORS origin by default outside production, none in production, and refuses * there', () => {
    const production = { NODE_ENV: 'production', ...PRODUCTION_SECRETS };
    expect(loadConfig({}).corsOrigins).toEqual(['*']);
    expect(loadConfig(production).corsOrigins).toEqual([]);
    expect(loadConfig({ ...production, CORS_ORIGINS: 'https://shop.example' }).corsOrigins).toEqual(['https://shop.example']);
    expect(problems({ ...production, CORS_ORIGINS: '*' })).toEqual([
      expect.stringMatching(/^CORS_ORIGINS \("\*"\): refused when NODE_ENV=production/),
    ]);
    expect(problems({ CORS_ORIGINS: 'https://shop.example/app' })).toEqual([expect.stringMatching(/^CORS_ORIGINS .*must be origins/)]);
  });

  it('reports one line per bad variable, naming it and its value', () => {
    const lines = problems({ PORT: 'eighty', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short', APP_ROLE: 'boss' });
    expect(lines).toHaveLength(4);
    expect(lines.find((line) => line.startsWith('PORT ("eighty")'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('DATABASE_URL ("mysql://x"): must be a postgres://'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('JWT_SECRET') && line.includes('at least 32'))).toBeDefined();
    expect(lines.find((line) => line.startsWith('APP_ROLE'))).toBeDefined();
  });

  it('requires the secrets in production', () => {
    const lines = problems({ NODE_ENV: 'production' });
    expect(lines.map((line) => line.split(' ')[0]).sort()).toEqual(['ENCRYPTION_KEY', 'JWT_SECRET', 'PUBLIC_API_KEY', 'PUBLIC_BASE_URL']);
  });

  it('honours UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS under NODE_ENV=test only, and refuses it anywhere else', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).requestLoginMayBypassRls).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' }).requestLoginMayBypassRls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'false' }).requestLoginMayBypassRls).toBe(false);
    const elsewhere: Record<string, string>[] = [{ NODE_ENV: 'development' }, { NODE_ENV: 'production', ...PRODUCTION_SECRETS }, {}];
    for (const env of elsewhere) {
      const lines = problems({ ...env, UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS: 'true' });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS \(true\): refused when NODE_ENV=(development|production)/);
    }
    // A config object changed after loading is still not honoured outside tests.
    const config = loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS });
    config.UNSAFE_REQUEST_ROLE_MAY_BYPASS_RLS = true;
    expect(config.requestLoginMayBypassRls).toBe(false);
  });

  it('wants ADMIN_EMAIL and ADMIN_PASSWORD together', () => {
    expect(problems({ ADMIN_EMAIL: 'root@example.com' })).toEqual([expect.stringContaining('ADMIN_EMAIL / ADMIN_PASSWORD')]);
  });

  it('allows redirects to the configured origins only', () => {
    const config = loadConfig({ ALLOWED_REDIRECT_ORIGINS: 'https://shop.example' });
    expect(config.allowsRedirectTo('https://shop.example/after?x=1')).toBe(true);
    expect(config.allowsRedirectTo('https://shop.example.evil.test/')).toBe(false);
    expect(config.allowsRedirectTo('http://shop.example/')).toBe(false);
    expect(config.allowsRedirectTo('not a url')).toBe(false);
  });
});
