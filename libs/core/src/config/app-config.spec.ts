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
    const config = loadConfig({ PORT: '8080', TRUST_PROXY: 'true', CORS_ORIGINS: 'https://a.example, https://b.example' });
    expect(config.PORT).toBe(8080);
    expect(config.TRUST_PROXY).toBe(true);
    expect(config.CORS_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
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
