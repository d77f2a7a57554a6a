import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authConfig } from '@app/auth';
import { ConfigError, httpConfig, type Settings } from '@app/core';
import { mailConfig } from '@app/mail';
import { webhooksConfig } from '@app/webhooks';
import { loadAppSettings, SETTINGS_NAMESPACES } from './settings.js';

let dir: string;
let secretsFile: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-settings-'));
  secretsFile = path.join(dir, '.storefront', 'development-secrets.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const load = (env: Record<string, string>): Settings => loadAppSettings(env, { secretsFile });

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
  PUBLIC_API_KEY: 'production-public-key',
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  PUBLIC_BASE_URL: 'https://api.example.com',
};

describe("the app's settings", () => {
  it('declare every variable once: each belongs to exactly one lib', () => {
    const names = SETTINGS_NAMESPACES.flatMap((namespace) => namespace.docs().map((doc) => doc.name));
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(names.length).toBeGreaterThan(100);
    expect(new Set(SETTINGS_NAMESPACES.map((namespace) => namespace.lib))).toEqual(
      new Set([
        '@app/core',
        '@app/auth',
        '@app/mail',
        '@app/commerce',
        '@app/billing',
        '@app/ai',
        '@app/social',
        '@app/webhooks',
      ]),
    );
  });

  it('require the four secrets in production, in one line naming every missing one', () => {
    const message =
      'ENCRYPTION_KEY, JWT_SECRET, PUBLIC_API_KEY, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)';
    expect(problems({ NODE_ENV: 'production' })).toEqual([message]);
    expect(problems({})).toEqual([message]);
    expect(problems({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), PUBLIC_API_KEY: 'p'.repeat(16) })).toEqual([
      'ENCRYPTION_KEY, PUBLIC_BASE_URL must be set (NODE_ENV is not development or test)',
    ]);
    expect(problems({ NODE_ENV: 'production', ...PRODUCTION_SECRETS })).toEqual([]);
  });

  it('name every bad variable of every lib at once, one line each', () => {
    const lines = problems({
      NODE_ENV: 'test',
      PORT: 'eighty',
      JWT_SECRET: 'short',
      MAIL_FROM: 'not an address',
      WEBHOOK_CIRCUIT_FAILURES: 'many',
      AI_PROVIDER: 'magic',
      X_API_URL: 'not a url',
    });
    expect(lines.map((line) => line.split(' ')[0])).toEqual([
      'PORT',
      'JWT_SECRET',
      'MAIL_FROM',
      'AI_PROVIDER',
      'X_API_URL',
      'WEBHOOK_CIRCUIT_FAILURES',
    ]);
    expect(() => load({ NODE_ENV: 'test', PORT: 'eighty', JWT_SECRET: 'short' })).toThrow(
      /^Invalid configuration:\n {2}PORT \("eighty"\): .*\n {2}JWT_SECRET \("short"\): must be at least 32 characters$/,
    );
  });

  it('check what the decorators cannot: an unknown AI function, ADMIN_EMAIL without ADMIN_PASSWORD', () => {
    expect(problems({ NODE_ENV: 'test', AI_HOURLY_LIMITS: 'generate-poem:3' })).toEqual([
      expect.stringMatching(/^AI_HOURLY_LIMITS \("generate-poem:3"\): unknown function "generate-poem"/),
    ]);
    expect(problems({ NODE_ENV: 'test', ADMIN_EMAIL: 'root@example.com' })).toEqual([
      expect.stringContaining('ADMIN_EMAIL / ADMIN_PASSWORD'),
    ]);
  });

  it(
    'retry webhook deliveries at once, then after 1, 5, 30 and ' +
      '60 minutes, with 10 s to answer and fair-delivery defaults',
    () => {
      const webhooks = load({ NODE_ENV: 'development' }).get(webhooksConfig);
      expect(webhooks.WEBHOOK_RETRY_DELAYS_MS).toEqual([0, 60_000, 5 * 60_000, 30 * 60_000, 60 * 60_000]);
      expect(webhooks.WEBHOOK_TIMEOUT_MS).toBe(10_000);
      expect([
        webhooks.WEBHOOK_ENDPOINT_CONCURRENCY,
        webhooks.WEBHOOK_CIRCUIT_FAILURES,
        webhooks.WEBHOOK_CIRCUIT_COOLDOWN_MS,
      ]).toEqual([2, 5, 60_000]);
      expect(webhooks.WEBHOOK_WORKER_CONCURRENCY).toBe(8);
      expect(webhooks.DELIVERY_RETENTION_DAYS).toBe(30);
      expect(
        load({ NODE_ENV: 'test', WEBHOOK_RETRY_DELAYS_MS: '0, 150,150' }).get(webhooksConfig).WEBHOOK_RETRY_DELAYS_MS,
      ).toEqual([0, 150, 150]);
      const lines = problems({
        NODE_ENV: 'test',
        WEBHOOK_ENDPOINT_CONCURRENCY: '0',
        WEBHOOK_CIRCUIT_FAILURES: 'many',
        WEBHOOK_CIRCUIT_COOLDOWN_MS: '50',
        WEBHOOK_WORKER_CONCURRENCY: '1000',
        DELIVERY_RETENTION_DAYS: '-1',
      });
      expect(lines.map((line) => line.split(' ')[0]).sort()).toEqual([
        'DELIVERY_RETENTION_DAYS',
        'WEBHOOK_CIRCUIT_COOLDOWN_MS',
        'WEBHOOK_CIRCUIT_FAILURES',
        'WEBHOOK_ENDPOINT_CONCURRENCY',
        'WEBHOOK_WORKER_CONCURRENCY',
      ]);
    },
  );

  it(
    'confirm e-mail addresses in production and not in ' +
      'development unless told, and send links back to AUTH_SITE_URL',
    () => {
      expect(load({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }).get(authConfig).requireEmailConfirmation).toBe(
        true,
      );
      expect(load({ NODE_ENV: 'development' }).get(authConfig).requireEmailConfirmation).toBe(false);
      expect(
        load({ NODE_ENV: 'development', AUTH_CONFIRM_EMAIL: 'true' }).get(authConfig).requireEmailConfirmation,
      ).toBe(true);
      expect(
        load({ NODE_ENV: 'production', ...PRODUCTION_SECRETS, AUTH_CONFIRM_EMAIL: 'false' }).get(authConfig)
          .requireEmailConfirmation,
      ).toBe(false);
      const settings = load({
        NODE_ENV: 'test',
        ALLOWED_REDIRECT_ORIGINS: 'https://shop.example',
        AUTH_SITE_URL: 'https://shop.example/account',
      });
      const [auth, http] = [settings.get(authConfig), settings.get(httpConfig)];
      expect(auth.redirectTarget('https://shop.example/reset', http)).toBe('https://shop.example/reset');
      expect(auth.redirectTarget('https://evil.example/', http)).toBe('https://shop.example/account');
      expect(auth.redirectTarget(['https://shop.example/'], http)).toBe('https://shop.example/account');
      const defaults = load({ NODE_ENV: 'test' });
      expect(defaults.get(authConfig).siteUrl(defaults.get(httpConfig))).toBe('http://localhost:3000');
      expect(defaults.get(authConfig).publicApiKey).toBe('sf_public_development_key');
    },
  );

  it('read the account and mail settings: durations, SMTP URLs, the sender', () => {
    const settings = load({
      NODE_ENV: 'test',
      AUTH_OTP_TTL: '30m',
      AUTH_RECENT_SIGN_IN: '15m',
      MAIL_RETRY_DELAYS_MS: '100, 200',
      SMTP_URL: 'smtps://u:p@mail.example:465',
    });
    expect([settings.get(authConfig).AUTH_OTP_TTL, settings.get(authConfig).AUTH_RECENT_SIGN_IN]).toEqual([1800, 900]);
    expect(settings.get(mailConfig).MAIL_RETRY_DELAYS_MS).toEqual([100, 200]);
    expect(load({ NODE_ENV: 'test' }).get(authConfig).AUTH_OTP_TTL).toBe(3600);
    expect(problems({ NODE_ENV: 'test', SMTP_URL: 'http://mail.example' })).toEqual([
      expect.stringContaining('SMTP_URL'),
    ]);
    expect(problems({ NODE_ENV: 'test', AUTH_OTP_TTL: '10s' })).toEqual([expect.stringContaining('AUTH_OTP_TTL')]);
    expect(problems({ NODE_ENV: 'test', MAIL_FROM: 'not an address' })).toEqual([expect.stringContaining('MAIL_FROM')]);
    expect(problems({ NODE_ENV: 'test', MAIL_FROM: 'Shop <shop@example.com>' })).toEqual([]);
  });

  it('read AUTH_REFRESH_REUSE_INTERVAL as a duration: 10 s by default, 0 turns the grace off, at most an hour', () => {
    const interval = (value: string) => load({ NODE_ENV: 'test', AUTH_REFRESH_REUSE_INTERVAL: value }).get(authConfig);
    expect(load({ NODE_ENV: 'test' }).get(authConfig).AUTH_REFRESH_REUSE_INTERVAL).toBe(10);
    expect(['30s', '1m', '0', '5'].map((value) => interval(value).AUTH_REFRESH_REUSE_INTERVAL)).toEqual([30, 60, 0, 5]);
    for (const bad of ['2h', 'soon', '-1s']) {
      expect(problems({ NODE_ENV: 'test', AUTH_REFRESH_REUSE_INTERVAL: bad })).toEqual([
        expect.stringContaining('AUTH_REFRESH_REUSE_INTERVAL'),
      ]);
    }
  });

  it('generate the development secrets of every lib that has one, and say so', () => {
    const settings = load({ NODE_ENV: 'development' });
    expect(settings.developmentSecretsFile).toBe(secretsFile);
    expect(settings.get(authConfig).jwtSecret).toBe(JSON.parse(fs.readFileSync(secretsFile, 'utf8')).JWT_SECRET);
  });
});
