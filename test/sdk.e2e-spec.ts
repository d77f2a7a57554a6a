import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { httpConfig } from '@app/core';
import { previewOpenApiDocument, SDK_SERVER_URL, sortKeys } from '../apps/api/src/openapi-preview.js';
import { ImageServer, twoColourPhoto } from './fakes/image-server.js';
import { FakeOpenAiServer, SAMPLE_ANSWERS, SCHEMA_NAMES } from './fakes/openai-server.js';
import { FakePlatformServer } from './fakes/platform-server.js';
import { WebhookReceiver } from './fakes/webhook-receiver.js';
import { PUBLIC_KEY, startApp, type TestApp } from './support/app.js';
import { createPrivateDatabase } from './support/database.js';
import { callBack, openStart } from './support/social.js';
import { describeMainFlows, type FlowWorld } from './sdk/main-flows.js';

/**
 * The generated client (sdk/) against the real app: the committed document is the one the app
 * serves, and the main flows run through the client alone (test/sdk/main-flows.ts), with a fake AI
 * provider, a fake X API and a webhook receiver on 127.0.0.1. A database of its own: the outbox
 * relay this app runs must not publish other files' events.
 */
describe('the generated client (sdk/)', () => {
  let api: TestApp;
  let database: Awaited<ReturnType<typeof createPrivateDatabase>>;
  let ai: FakeOpenAiServer;
  let platforms: FakePlatformServer;
  let images: ImageServer;
  let receiver: WebhookReceiver;
  let receiverUrl: string;

  beforeAll(async () => {
    database = await createPrivateDatabase('sdk');
    ai = await FakeOpenAiServer.start({ apiKey: 'sk-sdk-test-0123456789' });
    platforms = await FakePlatformServer.start();
    images = await new ImageServer({
      '/photo.png': { headers: { 'content-type': 'image/png' }, body: await twoColourPhoto('png') },
    }).start();
    receiver = new WebhookReceiver();
    receiverUrl = await receiver.start();
    api = await startApp({
      DATABASE_URL: database.url,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}sdk:`,
      OUTBOX_RELAY: 'true',
      AI_PROVIDER: 'openai',
      AI_BASE_URL: ai.url,
      AI_API_KEY: 'sk-sdk-test-0123456789',
      ...platforms.env(),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
    });
  });
  afterAll(async () => {
    await api?.close();
    await Promise.all([ai?.close(), platforms?.close(), images?.stop(), receiver?.stop()]);
    await database?.drop();
  });

  it(
    'sdk/openapi.json is what the app serves at /docs-json ' + '(the server URL aside), and what `npm run sdk` writes',
    async () => {
      const committed = JSON.parse(
        await readFile(fileURLToPath(new URL('../sdk/openapi.json', import.meta.url)), 'utf8'),
      );
      const served = (await api.request('GET', '/docs-json')).body;
      expect(served.servers).toEqual([{ url: api.settings.get(httpConfig).baseUrl }]);
      expect(committed.servers).toEqual([{ url: SDK_SERVER_URL }]);
      expect(sortKeys({ ...served, servers: committed.servers })).toEqual(committed);
      // The generator's own document: the app's modules in preview mode, no database.
      expect(await previewOpenApiDocument()).toEqual(committed);
    },
  );

  const world = (): FlowWorld => ({
    baseUrl: api.url,
    publicKey: PUBLIC_KEY,
    photoUrl: `${images.url}/photo.png`,
    ai: {
      productName: String(SAMPLE_ANSWERS[SCHEMA_NAMES.product].name),
      articleTitle: String(SAMPLE_ANSWERS[SCHEMA_NAMES.article].title),
    },
    // The browser: the start URL (which sets the connect's cookie), the fake platform's consent, the callback.
    async browse(authUrl) {
      const opened = await openStart(api, authUrl);
      if (opened.status !== 302 || !opened.location) throw new Error(`auth_url answered ${opened.status}`);
      const consent = await platforms.consent(opened.location);
      const back = await callBack(api, consent.redirect.toString(), opened.cookie);
      const location = back.headers.get('location');
      if (back.status !== 302 || !location) throw new Error(`the callback answered ${back.status}`);
      return new URL(location);
    },
    postsOnX: () => platforms.posts.filter((post) => post.platform === 'x').map((post) => post.text),
    receiverUrl,
    received: (path) =>
      receiver.to(path).map((request) => ({
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: request.body,
      })),
  });
  describe('the main flows, through the client only', () => describeMainFlows(world));
});
