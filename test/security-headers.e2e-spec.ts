import { createHash } from 'node:crypto';
import { httpConfig } from '@app/core';
import { startApp, type TestApp } from './support/app.js';

/** The settings production requires, for apps booted with NODE_ENV=production. */
const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: 'security-headers-test-secret-0123456789abcdef',
  ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  PUBLIC_BASE_URL: 'https://api.shop.example',
};
const METRICS_TOKEN = 'metrics-token-for-the-e2e-test-0123456789';

type Policy = Map<string, string[]>;

function policyOf(headers: Headers): Policy {
  const header = headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name, values]),
  );
}

/** The sources a directive allows, falling back to default-src as browsers do. */
const sources = (policy: Policy, directive: string) => policy.get(directive) ?? policy.get('default-src') ?? [];

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Every inline style (blocks and attributes) and inline script of a page must be allowed by hash; there must be no
 * inline script.
 */
function expectInlineContentAllowed(html: string, policy: Policy): void {
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
  const styleSrc = sources(policy, 'style-src');
  for (const [, block] of html.matchAll(/<style>([\s\S]*?)<\/style>/g)) expect(styleSrc).toContain(sha256(block));
  const attributes = [...html.matchAll(/\sstyle="([^"]*)"/g)].map(([, style]) => style);
  if (attributes.length > 0) expect(styleSrc).toContain("'unsafe-hashes'");
  for (const style of attributes) expect(styleSrc).toContain(sha256(style));
  expect(styleSrc).not.toContain("'unsafe-inline'");
}

function expectLocked(policy: Policy): void {
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
}

describe('security headers, CORS and /metrics', () => {
  describe('in development', () => {
    let api: TestApp;

    beforeAll(async () => {
      api = await startApp();
    });
    afterAll(() => api.close());

    it('JSON answers (and errors) carry nosniff, DENY and a CSP that allows nothing; no HSTS over http', async () => {
      for (const path of ['/health', '/functions/v1/stores', '/no-such-route']) {
        const response = await fetch(`${api.url}${path}`);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expectLocked(policyOf(response.headers));
        expect(response.headers.get('strict-transport-security')).toBeNull();
      }
    });

    it("the router's own refusals (a malformed URL, an overlong parameter) carry the same headers", async () => {
      for (const path of ['/functions/v1/products/%E0%A4%A', `/functions/v1/products/${'a'.repeat(600)}`]) {
        const response = await fetch(`${api.url}${path}`);
        expect(response.status).toBe(400);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expectLocked(policyOf(response.headers));
      }
    });

    it('/docs gets a CSP under which its scripts, stylesheet and inline styles load, and nothing else', async () => {
      const page = await fetch(`${api.url}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      const policy = policyOf(page.headers);
      expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
      expect(sources(policy, 'script-src')).toEqual(["'self'"]);
      const html = await page.text();
      expectInlineContentAllowed(html, policy);

      const assets = [
        ...[...html.matchAll(/<script[^>]*\ssrc=["']([^"']+)["']/g)].map(([, src]) => ({
          src,
          directive: 'script-src',
        })),
        ...[...html.matchAll(/<link[^>]*rel=["']stylesheet["'][^>]*href=["']([^"']+)["']/g)].map(([, src]) => ({
          src,
          directive: 'style-src',
        })),
        ...[...html.matchAll(/<link[^>]*rel=["']icon["'][^>]*href=["']([^"']+)["']/g)].map(([, src]) => ({
          src,
          directive: 'img-src',
        })),
      ];
      expect(assets.filter(({ directive }) => directive === 'script-src')).toHaveLength(3);
      for (const { src, directive } of assets) {
        const url = new URL(src, page.url);
        // 'self' is what allows them: each must be on this origin, and must load.
        expect(url.origin, src).toBe(api.url);
        expect(sources(policy, directive)).toContain("'self'");
        const asset = await fetch(url);
        expect(asset.status, src).toBe(200);
        if (directive !== 'script-src') continue;
        expect(asset.headers.get('content-type')).toMatch(/javascript/);
        // <style> elements the scripts render (React's createElement) are inline styles too.
        for (const [, css] of (await asset.text()).matchAll(/createElement\("style",null,"([^"\\]*)"\)/g)) {
          expect(sources(policy, 'style-src'), src).toContain(sha256(css));
        }
      }
      // The inline Swagger UI starts from (its init script) carries the whole document, not a remote URL.
      const init = await (await fetch(`${api.url}/docs/swagger-ui-init.js`)).text();
      expect(init).toContain('"swaggerDoc"');
    });

    it("the social sandbox's consent page cannot be framed and runs no script", async () => {
      const query = new URLSearchParams({
        platform: 'x',
        state: 'state-1',
        redirect_uri: `${api.settings.get(httpConfig).baseUrl}/functions/v1/social-connect/callback`,
      });
      const page = await fetch(`${api.url}/functions/v1/social-sandbox/authorize?${query}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      const policy = policyOf(page.headers);
      expectLocked(policy);
      expect(policy.get('script-src')).toBeUndefined();
      expectInlineContentAllowed(await page.text(), policy);
    });

    it('reflects any origin for CORS', async () => {
      const preflight = await fetch(`${api.url}/functions/v1/stores`, {
        method: 'OPTIONS',
        headers: { origin: 'https://anything.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://anything.example');
    });

    it('lets a browser read the request id, Retry-After and Idempotent-Replayed of an answer', async () => {
      const read = await fetch(`${api.url}/health`, { headers: { origin: 'https://anything.example' } });
      const exposed = (read.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'retry-after', 'idempotent-replayed']));
    });

    it('/metrics is open without METRICS_TOKEN', async () => {
      const metrics = await fetch(`${api.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('# HELP');
    });
  });

  describe('in production, with nothing optional set', () => {
    let api: TestApp;

    beforeAll(async () => {
      api = await startApp(PRODUCTION);
    });
    afterAll(() => api.close());

    it('sends HSTS, since PUBLIC_BASE_URL is https', async () => {
      const response = await fetch(`${api.url}/health`);
      expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=31536000/);
    });

    it('allows no CORS origin', async () => {
      const preflight = await fetch(`${api.url}/functions/v1/stores`, {
        method: 'OPTIONS',
        headers: { origin: 'https://anything.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const read = await fetch(`${api.url}/health`, { headers: { origin: 'https://anything.example' } });
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('closes /metrics: 404 in the envelope, as an unknown route', async () => {
      const metrics = await api.request('GET', '/metrics');
      expect(metrics.status).toBe(404);
      expect(metrics.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: 'Route not found: GET /metrics' },
      });
      const withToken = await api.request('GET', '/metrics', { token: METRICS_TOKEN });
      expect(withToken.status).toBe(404);
    });
  });

  describe('in production, with CORS_ORIGINS and METRICS_TOKEN', () => {
    let api: TestApp;

    beforeAll(async () => {
      api = await startApp({ ...PRODUCTION, CORS_ORIGINS: 'https://shop.example', METRICS_TOKEN });
    });
    afterAll(() => api.close());

    it('allows the listed origins only', async () => {
      const preflight = (origin: string) =>
        fetch(`${api.url}/functions/v1/stores`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
      expect((await preflight('https://shop.example')).headers.get('access-control-allow-origin')).toBe(
        'https://shop.example',
      );
      expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    });

    it('/metrics wants the bearer token: 401 in the envelope without it or with another, 200 with it', async () => {
      const none = await api.request('GET', '/metrics');
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ success: false, error: { code: 'UNAUTHENTICATED' } });
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect((await api.request('GET', '/metrics', { token: `${METRICS_TOKEN}x` })).status).toBe(401);
      expect(
        (await api.request('GET', '/metrics', { headers: { authorization: `Basic ${METRICS_TOKEN}` } })).status,
      ).toBe(401);
      const allowed = await api.request('GET', '/metrics', { token: METRICS_TOKEN });
      expect(allowed.status).toBe(200);
      expect(allowed.body).toContain('http_request');
    });
  });
});
