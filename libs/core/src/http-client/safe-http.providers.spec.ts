import { Test } from '@nestjs/testing';
import { httpConfig } from '../config/http.config.js';
import { SafeHttpClient } from './safe-http-client.js';
import { SAFE_HTTP_PROVIDERS } from './safe-http.providers.js';

describe('SAFE_HTTP_PROVIDERS', () => {
  async function clientFor(env: Record<string, string>) {
    const module = await Test.createTestingModule({
      providers: [
        { provide: httpConfig.KEY, useValue: httpConfig.from({ NODE_ENV: 'test', ...env }) },
        ...SAFE_HTTP_PROVIDERS,
      ],
    }).compile();
    return { http: module.get(SafeHttpClient), close: () => module.close() };
  }

  it('builds the client with https only and private addresses refused by default', async () => {
    const { http, close } = await clientFor({});
    await expect(http.assertUrl('http://localhost/')).rejects.toMatchObject({ reason: 'scheme' });
    await expect(http.assertUrl('https://localhost/')).rejects.toMatchObject({
      reason: expect.stringMatching(/loopback/),
    });
    await close();
  });

  it('takes WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_URLS from the config', async () => {
    const httpOnly = await clientFor({ WEBHOOK_ALLOW_HTTP: 'true' });
    await expect(httpOnly.http.assertUrl('http://localhost/')).rejects.toMatchObject({
      reason: expect.stringMatching(/loopback/),
    });
    await httpOnly.close();

    const both = await clientFor({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    await expect(both.http.assertUrl('http://localhost/')).resolves.toBeUndefined();
    await both.close();
  });
});
