import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DELIVERY_QUEUE } from '@app/webhooks';
import { merchantWithStore, PUBLIC_KEY, startApp, type TestApp, TEST_ADMIN } from './support/app.js';

/**
 * The queue dashboard (Bull Board at /admin/queues): admins only, through the same guards as every
 * route; a merchant's token and no token are refused in the error envelope, an admin's is let in, and
 * the dashboard shows the app's real queues without letting anyone change them.
 */
describe('queue dashboard (/admin/queues)', () => {
  let api: TestApp;
  let admin: string;
  let merchant: string;

  beforeAll(async () => {
    api = await startApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    const signedIn = await api.request('POST', '/auth/v1/token?grant_type=password', {
      headers: { apikey: PUBLIC_KEY },
      body: { email: TEST_ADMIN.email, password: TEST_ADMIN.password },
    });
    admin = signedIn.body.access_token;
    merchant = (await merchantWithStore(api, 'Dashboard store')).token;
  });
  afterAll(() => api?.close());

  const paths = ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/css/../../api/queues'];

  it.each(paths)('%s without a token: 401 in the error envelope', async (path) => {
    const answer = await api.request('GET', path);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'UNAUTHENTICATED', message: 'Missing access token: send Authorization: Bearer <access_token>' },
    });
  });

  it.each(paths)('%s with a merchant’s token: 403 in the error envelope', async (path) => {
    const answer = await api.request('GET', path, { token: merchant });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: 'Only admins may open the queue dashboard' },
    });
  });

  it('the public API key alone is refused too', async () => {
    const answer = await api.request('GET', '/admin/queues/api/queues', {
      headers: { apikey: PUBLIC_KEY, authorization: `Bearer ${PUBLIC_KEY}` },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('an admin gets the page, its scripts and the queues with their jobs, read-only', async () => {
    const page = await fetch(`${api.url}/admin/queues`, { headers: { authorization: `Bearer ${admin}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<base href="/admin/queues/"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");

    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${api.url}/admin/queues/${script}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    // The same asset without the token is refused: the guards stand before the static files as well.
    expect((await fetch(`${api.url}/admin/queues/${script}`)).status).toBe(401);

    // A job of the app's delivery queue, as the app queues it, is listed.
    const queue = api.app.get<Queue>(getQueueToken(DELIVERY_QUEUE), { strict: false });
    const job = await queue.add(
      { deliveryId: 'dashboard-probe', attempt: 1 },
      { jobId: `dashboard-probe-${Date.now()}`, delay: 3_600_000 },
    );
    try {
      const listed = await api.request(
        'GET',
        `/admin/queues/api/queues?activeQueue=${DELIVERY_QUEUE}&status=delayed&page=1`,
        {
          token: admin,
        },
      );
      expect(listed.status).toBe(200);
      const delivery = listed.body.queues.find((entry: { name: string }) => entry.name === DELIVERY_QUEUE);
      expect(delivery.readOnlyMode).toBe(true);
      expect(delivery.jobs.map((entry: { id: string }) => entry.id)).toContain(job.id);
      expect(listed.body.queues.map((entry: { name: string }) => entry.name)).toContain('social-posts');

      // Read-only: promoting the delayed job is refused and the job stays delayed.
      const promote = await api.request('PUT', `/admin/queues/api/queues/${DELIVERY_QUEUE}/${job.id}/promote`, {
        token: admin,
      });
      expect(promote.status).toBeGreaterThanOrEqual(400);
      expect(promote.status).toBeLessThan(500);
      expect(await (await queue.getJob(job.id))!.getState()).toBe('delayed');
    } finally {
      await job.remove();
    }
  });
});
