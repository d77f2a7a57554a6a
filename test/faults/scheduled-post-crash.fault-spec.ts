import { Redis } from 'ioredis';
import { FakePlatformServer, type FakePlatform } from '../fakes/platform-server.js';
import { FaultStack } from './support/stack.js';

/**
 * (c) The worker is SIGKILLed while it publishes scheduled posts (live mode, fake platforms on
 * 127.0.0.1), at three points: A while the platform still holds the request (nothing published), B
 * after the platform published but before its answer came back, C before its time came at all. After
 * a restart: C is published once; A and B are never tried again, not even by the job that was
 * running when the worker died, and end `failed` with an `interrupted` result telling the merchant to
 * check the account, since B is on the platform and A is not, and only the platform knows which.
 */
describe('fault: worker killed during scheduled-post publishing', () => {
  let fake: FakePlatformServer;
  let stack: FaultStack;
  let merchant: Awaited<ReturnType<FaultStack['merchant']>>;

  beforeAll(async () => {
    fake = await FakePlatformServer.start();
    stack = await FaultStack.start('scheduled_posts', {
      ...fake.env(),
      SOCIAL_HTTP_TIMEOUT_MS: '120000',
      SOCIAL_INTERRUPTED_AFTER_MS: '3000',
    });
    merchant = await stack.merchant();
  });
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  const connect = (platform: FakePlatform) => stack.connect(merchant, platform);

  async function schedule(platform: FakePlatform, text: string, inMs: number): Promise<string> {
    const result = await stack.call('POST', '/functions/v1/social-publish', {
      token: merchant.token,
      body: {
        store_id: merchant.storeId,
        platforms: [platform],
        content: { text },
        schedule_at: new Date(Date.now() + inMs).toISOString(),
      },
    });
    return result.body.results[0].post_id as string;
  }

  /** The post as the merchant sees it. */
  async function post(
    id: string,
  ): Promise<{ status: string; results: { status: string; error: { code: string; message: string } | null }[] }> {
    const listed = await stack.call('GET', `/functions/v1/social-posts?store_id=${merchant.storeId}&limit=100`, {
      token: merchant.token,
    });
    return listed.body.data.find((item: { id: string }) => item.id === id);
  }

  const publishRequests = (platform: FakePlatform, text: string) =>
    fake
      .requestsTo(platform, 'publish')
      .filter((request) => JSON.stringify(request.body ?? request.query).includes(text));
  const postsOnPlatform = (text: string) => fake.posts.filter((item) => item.text === text);

  it('publishes each post at most once and tells the truth about the interrupted ones', async () => {
    await connect('x');
    await connect('facebook');
    await stack.startWorker();
    // A: X holds the request (it would publish after 2 minutes). B: Facebook publishes at once and holds the answer.
    fake.enqueue('x', 'publish', { kind: 'delay', ms: 120_000, then: { kind: 'default' } });
    fake.enqueue('facebook', 'publish', { kind: 'answer-late', ms: 120_000 });
    const a = await schedule('x', 'Post A: cut before the platform acted', 1500);
    const b = await schedule('facebook', 'Post B: cut after the platform acted', 1500);
    const c = await schedule('x', 'Post C: due while no worker runs', 8000);
    const cDue = Date.now() + 8000;

    await stack.eventually(
      'A and B at their platforms',
      async () =>
        publishRequests('x', 'Post A').length === 1 &&
        postsOnPlatform('Post B: cut after the platform acted').length === 1,
      30_000,
    );
    expect((await post(a)).status).toBe('publishing');
    expect((await post(b)).status).toBe('publishing');
    await stack.killWorker();

    // C falls due while no worker runs.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cDue - Date.now()) + 1000));
    expect((await post(c)).status).toBe('scheduled');
    await stack.startWorker();

    const finished = await stack.eventually(
      'A and B closed as interrupted, C published',
      async () => {
        const [postA, postB, postC] = await Promise.all([post(a), post(b), post(c)]);
        return postA.status === 'failed' && postB.status === 'failed' && postC.status === 'published'
          ? { postA, postB, postC }
          : null;
      },
      60_000,
    );
    for (const interrupted of [finished.postA, finished.postB]) {
      expect(interrupted.results).toEqual([
        expect.objectContaining({
          status: 'failed',
          error: { code: 'interrupted', message: 'Publishing was interrupted; check the account before posting again' },
        }),
      ]);
    }
    expect(finished.postC.results).toEqual([expect.objectContaining({ status: 'published' })]);

    // The jobs the killed worker was running come back once their Bull locks expire (about 30 s):
    // wait until they have run and are gone, then count what each platform was asked.
    const redis = new Redis(stack.services.redisUrl);
    try {
      const jobKey = (postId: string) => `${stack.services.redisPrefix}bull:social-posts:${postId}:1`;
      await stack.eventually(
        'the interrupted jobs run again and finish',
        async () => (await redis.exists(jobKey(a), jobKey(b))) === 0,
        90_000,
      );
    } finally {
      redis.disconnect();
    }
    expect(publishRequests('x', 'Post A')).toHaveLength(1);
    expect(postsOnPlatform('Post A: cut before the platform acted')).toHaveLength(0);
    expect(publishRequests('facebook', 'Post B')).toHaveLength(1);
    expect(postsOnPlatform('Post B: cut after the platform acted')).toHaveLength(1);
    expect(publishRequests('x', 'Post C')).toHaveLength(1);
    expect(postsOnPlatform('Post C: due while no worker runs')).toHaveLength(1);

    const notifications = await stack.call('GET', `/functions/v1/notifications?store_id=${merchant.storeId}`, {
      token: merchant.token,
    });
    const failedPosts = notifications.body.data
      .filter((item: { kind: string }) => item.kind === 'social_post_failed')
      .map((item: { data: { post_id: string } }) => item.data.post_id);
    expect(failedPosts.sort()).toEqual([a, b].sort());
  });
});
