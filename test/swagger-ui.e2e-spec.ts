import { mkdir, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { onTestFailed } from 'vitest';
import { ImageServer, twoColourPhoto } from './fakes/image-server.js';
import { findChromium } from './support/chromium.js';
import { PUBLIC_KEY, startApp, uniqueEmail, type TestApp } from './support/app.js';

/**
 * Swagger UI at /docs, in headless Chromium, as a person uses it: Authorize with the public key, sign
 * up with "Try it out", Authorize with the access token the page shows, create a store, generate a
 * product from a photo. It checks what the page shows (status codes, the bodies, the curl lines with
 * the credentials Swagger UI sent) and that the API agrees with it. The page is saved as
 * test-results/swagger-ui.png. Without a Chromium (see test/support/chromium.ts) the file is skipped
 * and prints why.
 */
const RESULTS = fileURLToPath(new URL('../test-results/', import.meta.url));
const browserBinary = findChromium();
if (browserBinary.reason) console.warn(`test/swagger-ui.e2e-spec.ts is skipped: ${browserBinary.reason}`);

/** A free port of 127.0.0.1, for an app that must know its address before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface ShownResponse {
  status: number;
  body: any;
  /** The curl line Swagger UI shows for the request it sent. */
  curl: string;
  /** The "Request URL" it shows. */
  url: string;
}

describe.skipIf(!browserBinary.path)(
  `Swagger UI in Chromium${browserBinary.reason ? ` (skipped: ${browserBinary.reason})` : ''}`,
  () => {
    let api: TestApp;
    let images: ImageServer;
    let browser: Browser | undefined;
    let page: Page;
    const pageProblems: string[] = [];

    beforeAll(async () => {
      await rm(`${RESULTS}swagger-ui-failure.png`, { force: true });
      images = await new ImageServer({
        '/mug.png': { headers: { 'content-type': 'image/png' }, body: await twoColourPhoto('png') },
      }).start();
      const port = await freePort();
      api = await startApp({
        PORT: String(port),
        // The server the OpenAPI document names, and so the one "Try it out" calls (and CSP's connect-src allows).
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        AI_PROVIDER: 'local',
        // generate-product fetches the photo from the fake image server on 127.0.0.1.
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
      });
      // Playwright runs Chromium without its sandbox by default (CI runs as root) and closes it if this process ends.
      browser = await chromium.launch({
        executablePath: browserBinary.path!,
        args: ['--disable-dev-shm-usage'],
        timeout: 20_000,
      });
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(10_000);
      page.on('console', (message) => {
        if (message.type() === 'error') pageProblems.push(message.text());
      });
      page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    });

    afterAll(async () => {
      await browser?.close();
      await api?.close();
      await images?.stop();
    });

    /** The operation's block; Swagger UI's id is `operations-<tag>-<operationId>`. */
    async function operation(tag: string, operationId: string): Promise<Locator> {
      const block = page.locator(`#operations-${tag}-${operationId}`);
      // With a large document Swagger UI renders only the operations near the viewport: scroll down until this one is
      // there.
      for (let i = 0; i < 60 && (await block.count()) === 0; i++) {
        await page.mouse.wheel(0, 800);
        await block.waitFor({ state: 'attached', timeout: 100 }).catch(() => undefined);
      }
      return block;
    }

    /** Opens the operation, "Try it out", the JSON body, "Execute"; answers what the page shows of the response. */
    async function tryItOut(block: Locator, body: unknown): Promise<ShownResponse> {
      await block.locator('.opblock-summary-control').click();
      await block.locator('button.try-out__btn').click();
      await block.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
      await block.locator('button.execute').click();
      const live = block.locator('.live-responses-table tbody tr.response');
      const status = (await live.locator('td.response-col_status').textContent({ timeout: 15_000 }))!.trim();
      const text = await live.locator('td.response-col_description .highlight-code pre').first().textContent();
      return {
        status: Number(/^\d{3}/.exec(status)?.[0]),
        body: JSON.parse(text!),
        curl: (await block.locator('.curl-command .curl').textContent())!,
        url: (await block.locator('.request-url pre').textContent())!,
      };
    }

    /** Authorize → the scheme's value → its Authorize → Close; answers the scheme's state line ("Authorized"). */
    async function authorize(scheme: 'apikey' | 'bearer', value: string): Promise<string | null> {
      await page.locator('.auth-wrapper > button.authorize').click();
      const form = page
        .locator('.modal-ux .auth-container')
        .filter({ has: page.locator('h4 > code', { hasText: new RegExp(`^${scheme}$`) }) });
      await form.locator('input[type="text"]').fill(value);
      await form.locator('button[type="submit"].authorize').click();
      const state = await form.locator('h6').textContent();
      await page.locator('.modal-ux button.btn-done').first().click();
      await page.locator('.modal-ux').waitFor({ state: 'detached' });
      return state;
    }

    it(
      'authorizes with the public key, signs up, authorizes ' +
        'with the token, creates a store and generates a product',
      async () => {
        onTestFailed(async () => {
          await mkdir(RESULTS, { recursive: true });
          await page?.screenshot({ path: `${RESULTS}swagger-ui-failure.png`, fullPage: true }).catch(() => undefined);
        });
        const loaded = await page.goto(`${api.url}/docs`);
        expect(loaded?.status()).toBe(200);
        await page.locator('.opblock').first().waitFor();
        expect(await page.locator('.info .title').textContent()).toContain('Storefront Platform API');

        // The public key, for the sign-up (the operation declares the apikey scheme).
        expect(await authorize('apikey', PUBLIC_KEY)).toBe('Authorized');
        expect(await page.locator('.auth-wrapper > button.authorize').getAttribute('class')).toContain('locked');

        const email = uniqueEmail('swagger');
        const signUp = await tryItOut(await operation('auth', 'AuthController_signUp'), {
          email,
          password: 'correct horse battery',
        });
        // The query may carry the redirect_to example Swagger UI fills in; the page called this app.
        expect(signUp.url.split('?')[0]).toBe(`${api.url}/auth/v1/signup`);
        expect(signUp.curl).toContain(`apikey: ${PUBLIC_KEY}`);
        expect(signUp.status).toBe(200);
        expect(signUp.body.user).toMatchObject({ email, role: 'merchant' });
        const token: string = signUp.body.access_token;
        expect(token.split('.')).toHaveLength(3);

        // The access token the page showed, as the bearer.
        expect(await authorize('bearer', token)).toBe('Authorized');

        const storeName = 'Swagger Fern Goods';
        const store = await tryItOut(await operation('stores', 'StoresController_create'), {
          name: storeName,
          currency: 'EUR',
        });
        expect(store.url).toBe(`${api.url}/functions/v1/stores`);
        expect(store.curl).toContain(`Authorization: Bearer ${token}`);
        expect(store.status).toBe(201);
        expect(store.body).toMatchObject({
          success: true,
          store: { name: storeName, currency: 'EUR', owner_id: signUp.body.user.id },
        });
        const storeId: string = store.body.store.id;
        const stored = await api.request('GET', `/functions/v1/stores/${storeId}`, { token });
        expect(stored.status).toBe(200);
        expect(stored.body.store.name).toBe(storeName);

        const productBlock = await operation('ai', 'AiController_generateProduct');
        const request = { image_url: `${images.url}/mug.png`, store_id: storeId, language: 'en' };
        const product = await tryItOut(productBlock, request);
        expect(product.url).toBe(`${api.url}/functions/v1/generate-product`);
        expect(product.curl).toContain(`Authorization: Bearer ${token}`);
        expect(product.status).toBe(200);
        expect(product.body.success).toBe(true);
        expect(product.body.product).toMatchObject({
          ai_credits_used: 2,
          name: expect.any(String),
          name_en: expect.any(String),
        });
        expect(product.body.product.name.length).toBeGreaterThan(0);
        expect(product.body.product.price).toBeGreaterThan(0);
        expect(images.hits.get('/mug.png')).toBe(1);

        // The page's call was a real one: the store paid 2 of its 50 welcome credits for it, and the local
        // provider drafts the same product from the same photo when the API is called directly.
        const credits = await api.request('GET', `/functions/v1/credits?store_id=${storeId}`, { token });
        expect(credits.body.balance).toBe(48);
        expect(credits.body.ledger[0]).toMatchObject({ kind: 'charge', amount: -2, function: 'generate-product' });
        const direct = await api.request('POST', '/functions/v1/generate-product', { token, body: request });
        expect(direct.status).toBe(200);
        expect(direct.body.product).toEqual(product.body.product);

        // The operation from its summary line to the response shown, as the screenshot.
        await mkdir(RESULTS, { recursive: true });
        const live = productBlock.locator('.live-responses-table');
        await live.scrollIntoViewIfNeeded();
        const scroll = await page.evaluate<{ x: number; y: number }>('({ x: window.scrollX, y: window.scrollY })');
        const from = (await productBlock.boundingBox())!;
        const to = (await live.boundingBox())!;
        await page.screenshot({
          path: `${RESULTS}swagger-ui.png`,
          fullPage: true,
          clip: { x: from.x + scroll.x, y: from.y + scroll.y, width: from.width, height: to.y + to.height - from.y },
        });

        // Nothing was refused by the page's Content-Security-Policy, and no script failed.
        expect(pageProblems).toEqual([]);
      },
      45_000,
    );
  },
);
