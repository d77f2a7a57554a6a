import { Logger } from '@nestjs/common';
import { UnsafeUrlError } from './http-client.errors.js';
import { SafeHttpClient } from './safe-http-client.js';
import type { HostResolver, ResolvedAddress, SafeHttpOptions } from './safe-http.types.js';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** A resolver answering from a table (unknown names: ENOTFOUND), counting its calls. */
function table(entries: Record<string, ResolvedAddress[]>) {
  const calls: string[] = [];
  const lookup: HostResolver = async (hostname) => {
    calls.push(hostname);
    const answer = entries[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return { calls, lookup };
}

const names = {
  'example.com': [v4('93.184.215.14'), v6('2606:2800:21f:cb07:6820:80da:af6b:8b2c')],
  'example.internal': [v4('10.0.0.5')],
  'mixed.test': [v4('93.184.215.14'), v4('127.0.0.1')],
  'mixed6.test': [v6('2606:4700::1'), v6('fe80::1')],
  'mapped.test': [v6('::ffff:127.0.0.1')],
  'metadata.test': [v4('169.254.169.254')],
  'empty.test': [],
};

describe('SafeHttpClient.assertUrl', () => {
  const clients: SafeHttpClient[] = [];
  const make = (options: Partial<SafeHttpOptions> = {}, resolver = table(names)) => {
    const client = new SafeHttpClient({ allowPrivate: false, allowHttp: false, lookup: resolver.lookup, ...options });
    clients.push(client);
    return { client, calls: resolver.calls };
  };
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  async function refusal(client: SafeHttpClient, url: string): Promise<UnsafeUrlError> {
    const error = await client.assertUrl(url).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error, url).toBeInstanceOf(UnsafeUrlError);
    return error as UnsafeUrlError;
  }

  it('accepts an https URL whose every address is public', async () => {
    const { client, calls } = make();
    await expect(client.assertUrl('https://example.com/hooks?x=1')).resolves.toBeUndefined();
    expect(calls).toEqual(['example.com']);
    await expect(client.assertUrl('https://8.8.8.8:8443/')).resolves.toBeUndefined();
    await expect(client.assertUrl('https://[2606:4700:4700::1111]/')).resolves.toBeUndefined();
  });

  it('requires https unless http is allowed, and never any other scheme', async () => {
    const strict = make().client;
    const error = await refusal(strict, 'http://example.com/');
    expect(error.reason).toBe('scheme');
    expect(error.message).toBe('url must use https');
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'ws://example.com/',
      'javascript:alert(1)',
    ]) {
      expect((await refusal(strict, url)).reason).toBe('scheme');
    }

    const relaxed = make({ allowHttp: true }).client;
    await expect(relaxed.assertUrl('http://example.com/')).resolves.toBeUndefined();
    expect((await refusal(relaxed, 'ftp://example.com/')).message).toBe('url must use https or http');
  });

  it('refuses what is not an absolute URL', async () => {
    const { client } = make();
    for (const url of ['', 'example.com', '/hooks', 'https://', 'https://exa mple.com/', 'https://[::1/']) {
      expect((await refusal(client, url)).reason, url).toBe('invalid-url');
    }
  });

  it('refuses credentials in the URL', async () => {
    const { client } = make({ allowPrivate: true });
    for (const url of [
      'https://user:secret@example.com/',
      'https://user@example.com/',
      'https://:secret@example.com/',
    ]) {
      const error = await refusal(client, url);
      expect(error.reason).toBe('credentials');
      expect(error.message).toBe('url must not contain credentials');
    }
  });

  it('refuses literal IP hosts the policy forbids, in any notation, without resolving anything', async () => {
    const { client, calls } = make();
    const cases: [string, string][] = [
      ['https://127.0.0.1/', 'loopback'],
      ['https://2130706433/', 'loopback'],
      ['https://0177.0.0.1/', 'loopback'],
      ['https://127.1/', 'loopback'],
      ['https://0x7f000001:8443/', 'loopback'],
      ['https://[::1]/', 'loopback'],
      ['https://[::ffff:127.0.0.1]/', 'ipv4-mapped loopback'],
      ['https://[::ffff:7f00:1]/', 'ipv4-mapped loopback'],
      ['https://10.0.0.5/', 'private'],
      ['https://169.254.169.254/latest/meta-data/', 'metadata'],
      ['https://[fd00:ec2::254]/', 'metadata'],
      ['https://100.100.100.200/', 'metadata'],
      ['https://100.64.1.1/', 'cgnat'],
      ['https://0.0.0.0/', 'unspecified'],
      ['https://[64:ff9b::a00:1]/', 'nat64 private'],
      ['https://[2002:c0a8:1::1]/', '6to4 private'],
    ];
    for (const [url, reason] of cases) {
      const error = await refusal(client, url);
      expect(error.reason, url).toBe(reason);
      expect(error.message).toMatch(/^url host \S+ is not allowed \(.+\)$/);
    }
    expect((await refusal(client, 'https://2130706433/')).message).toBe('url host 127.0.0.1 is not allowed (loopback)');
    expect(calls).toEqual([]);
  });

  it(
    'refuses a name when any of its addresses is forbidden, ' + 'telling the caller neither the address nor the rule',
    async () => {
      const { client } = make();
      const hidden =
        'points to an address that is not allowed (loopback, ' +
        'private, link-local, metadata or another non-public address)';
      const internal = await refusal(client, 'https://example.internal/hook');
      expect(internal.reason).toBe('private');
      expect(internal.message).toBe(`url host example.internal ${hidden}`);
      expect((await refusal(client, 'https://mixed.test/')).message).toBe(`url host mixed.test ${hidden}`);
      expect((await refusal(client, 'https://mixed6.test/')).reason).toBe('link-local');
      expect((await refusal(client, 'https://mapped.test/')).reason).toBe('ipv4-mapped loopback');
      const metadata = await refusal(client, 'https://metadata.test/');
      expect(metadata.reason).toBe('metadata');
      expect(metadata.message).toBe(`url host metadata.test ${hidden}`);
    },
  );

  it('keeps the resolved address for the server: on the error and in a warning log', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { client } = make();
      const internal = await refusal(client, 'https://example.internal/hook');
      expect(internal.address).toBe('10.0.0.5');
      expect(internal.host).toBe('example.internal');
      expect(warn).toHaveBeenCalledWith(
        { host: 'example.internal', address: '10.0.0.5', reason: 'private', stage: 'resolved' },
        'outbound URL refused by the address policy',
      );
      await refusal(client, 'https://2130706433/');
      expect(warn).toHaveBeenLastCalledWith(
        { host: '127.0.0.1', address: '127.0.0.1', reason: 'loopback', stage: 'literal' },
        'outbound URL refused by the address policy',
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('refuses a name that does not resolve, or not in time', async () => {
    const { client } = make({ allowPrivate: true });
    const missing = await refusal(client, 'https://nowhere.test/');
    expect(missing.reason).toBe('unresolvable');
    expect(missing.message).toBe('url host nowhere.test does not resolve (ENOTFOUND)');
    expect((await refusal(client, 'https://empty.test/')).reason).toBe('unresolvable');

    const hanging = make(
      { resolveTimeoutMs: 50 },
      { calls: [], lookup: () => new Promise<never>(() => undefined) },
    ).client;
    const started = Date.now();
    expect((await refusal(hanging, 'https://slow.test/')).reason).toBe('unresolvable');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('lets private addresses through when allowed, still checking scheme and credentials', async () => {
    const { client } = make({ allowPrivate: true });
    await expect(client.assertUrl('https://127.0.0.1:8443/')).resolves.toBeUndefined();
    await expect(client.assertUrl('https://example.internal/')).resolves.toBeUndefined();
    await expect(client.assertUrl('https://[::1]/')).resolves.toBeUndefined();
    expect((await refusal(client, 'http://127.0.0.1/')).reason).toBe('scheme');
    expect((await refusal(client, 'https://a:b@127.0.0.1/')).reason).toBe('credentials');
  });

  it('resolves with the system resolver by default: localhost is loopback', async () => {
    const client = new SafeHttpClient({ allowPrivate: false, allowHttp: true });
    clients.push(client);
    const error = await refusal(client, 'http://localhost:8080/');
    expect(['loopback', 'ipv4-mapped loopback']).toContain(error.reason);
    expect(error.message).toMatch(/^url host localhost points to an address that is not allowed/);
    expect(error.message).not.toMatch(/127\.0\.0\.1|::1/);
    expect(['127.0.0.1', '::1']).toContain(error.address);
  });

  it('applies the same URL rules to requests, before any connection', async () => {
    const { client, calls } = make();
    await expect(client.post('http://example.com/', { body: '{}' })).rejects.toMatchObject({ reason: 'scheme' });
    await expect(client.get('https://u:p@example.com/')).rejects.toMatchObject({ reason: 'credentials' });
    await expect(client.request('POST', 'not a url')).rejects.toMatchObject({ reason: 'invalid-url' });
    await expect(client.post('https://169.254.169.254/', { body: '' })).rejects.toMatchObject({
      name: 'UnsafeUrlError',
      reason: 'metadata',
    });
    await expect(client.post('https://example.internal/', { body: '' })).rejects.toMatchObject({
      name: 'UnsafeUrlError',
      reason: 'private',
    });
    expect(calls).toEqual(['example.internal']);
  });
});
