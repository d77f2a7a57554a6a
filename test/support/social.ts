import type { TestApp } from './app.js';

export const REDIRECT_URL = 'http://localhost:5173/settings/social';

/** The path and query of a URL this app answered with, to request it on the test server's address. */
export function localPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The `href` of the sandbox consent page's link with this id, unescaped. */
export function linkOf(html: string, id: 'allow' | 'deny'): string {
  const match = new RegExp(`id="${id}" href="([^"]+)"`).exec(html);
  if (!match) throw new Error(`no ${id} link in the consent page`);
  return match[1]
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** Where a 302 of this app sends the browser, with its query parameters. */
export function redirectOf(result: { status: number; headers: Headers }): { url: URL; params: Record<string, string> } {
  if (result.status !== 302) throw new Error(`expected a redirect, got ${result.status}`);
  const url = new URL(result.headers.get('location')!);
  return { url, params: Object.fromEntries(url.searchParams) };
}

/** Starts a connect; answers the start URL (`auth_url`) and state. */
export async function startConnect(
  api: TestApp,
  token: string,
  storeId: string,
  platform: string,
  redirectUrl = REDIRECT_URL,
) {
  const started = await api.request('POST', '/functions/v1/social-connect', {
    token,
    body: { platform, store_id: storeId, redirect_url: redirectUrl },
  });
  if (started.status !== 200)
    throw new Error(`social-connect failed: ${started.status} ${JSON.stringify(started.body)}`);
  return started.body as { success: true; auth_url: string; state: string };
}

/**
 * Opens the start URL (`auth_url`) as a browser would: where it redirects, and the cookie it sets,
 * as `name=value` the way a browser sends it back (null when none was set).
 */
export async function openStart(api: TestApp, authUrl: string) {
  const opened = await api.request('GET', localPath(authUrl));
  const setCookie = opened.headers.get('set-cookie');
  return {
    status: opened.status,
    headers: opened.headers,
    location: opened.headers.get('location'),
    setCookie,
    cookie: setCookie ? setCookie.split(';')[0] : null,
    body: opened.body,
  };
}

/** Requests the callback URL the platform sent the browser to, with the browser's cookie (if any). */
export function callBack(api: TestApp, url: string, cookie: string | null) {
  return api.request('GET', localPath(url), { headers: cookie ? { cookie } : {} });
}

/**
 * Connects a sandbox account through the start URL and the consent page, as a browser would; answers the account id.
 */
export async function connectSandbox(api: TestApp, token: string, storeId: string, platform: string): Promise<string> {
  const { auth_url } = await startConnect(api, token, storeId, platform);
  const { location, cookie } = await openStart(api, auth_url);
  if (!location || !cookie) throw new Error('the start URL did not redirect with a cookie');
  const consent = await fetch(`${api.url}${localPath(location)}`);
  const callback = await callBack(api, linkOf(await consent.text(), 'allow'), cookie);
  const { params } = redirectOf(callback);
  if (params.status !== 'connected') throw new Error(`connect ended ${JSON.stringify(params)}`);
  return params.account;
}

/** Polls until `check` answers a value (or fails after `timeoutMs`): for work a background worker does. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
